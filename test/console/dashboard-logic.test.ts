import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timelineSeries, timelineTotals } from '../../packages/console/src/features/dashboard/timeline-series.ts';
import { slaRows } from '../../packages/console/src/features/dashboard/sla-status.ts';
import {
  gettingStartedSteps,
  needsGettingStarted,
  nextStep,
} from '../../packages/console/src/features/dashboard/getting-started.ts';
import { debounce, refreshesDashboard } from '../../packages/console/src/features/dashboard/live-refresh.ts';

const NOW = Date.parse('2026-03-10T15:00:00Z');

test('timeline: every UTC day of the window, zeros where the API left a day out', () => {
  const rows = timelineSeries(
    [
      { date: '2026-03-08', total: 3, success: 2, failed: 1, partial: 0 },
      { date: '2026-03-10', total: 1, success: 0, failed: 0, partial: 1 },
    ],
    3,
    NOW,
  );
  assert.deepEqual(
    rows.map((r) => r.date),
    ['2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10'],
  );
  assert.deepEqual(rows[1], { date: '2026-03-08', success: 2, failed: 1, partial: 0, total: 3 });
  assert.deepEqual(rows[2], { date: '2026-03-09', success: 0, failed: 0, partial: 0, total: 0 });
  assert.deepEqual(timelineTotals(rows), { runs: 4, success: 2, failed: 1, partial: 1 });
});

test('timeline: a day the API has beyond the client clock is kept, in order', () => {
  const rows = timelineSeries([{ date: '2026-03-11', total: 1, success: 1, failed: 0, partial: 0 }], 1, NOW);
  assert.deepEqual(
    rows.map((r) => r.date),
    ['2026-03-09', '2026-03-10', '2026-03-11'],
  );
});

test('sla: RPO violations and RTO rows merge per task; breaches first, then unproven', () => {
  const rows = slaRows({
    violations: [
      {
        taskId: 2,
        taskName: 'db',
        slaHoursRpo: 24,
        hoursSinceLastSuccess: 30,
        neverSucceeded: false,
        lastSuccessAt: '2026-03-09T09:00:00Z',
      },
    ],
    rto: [
      {
        taskId: 1,
        taskName: 'alpha',
        rtoMinutes: 30,
        rtoStatus: 'ok',
        measuredMinutes: 12,
        measuredAt: '2026-03-01T00:00:00Z',
        verifyRecordId: 7,
      },
      {
        taskId: 2,
        taskName: 'db',
        rtoMinutes: 60,
        rtoStatus: 'ok',
        measuredMinutes: 20,
        measuredAt: '2026-03-01T00:00:00Z',
        verifyRecordId: 8,
      },
      {
        taskId: 3,
        taskName: 'beta',
        rtoMinutes: 60,
        rtoStatus: 'unmeasured',
        measuredMinutes: null,
        measuredAt: null,
        verifyRecordId: null,
      },
      {
        taskId: 4,
        taskName: 'zeta',
        rtoMinutes: 5,
        rtoStatus: 'exceeded',
        measuredMinutes: 9,
        measuredAt: '2026-03-01T00:00:00Z',
        verifyRecordId: 9,
      },
    ],
  });
  assert.deepEqual(
    rows.map((r) => [r.taskName, r.level]),
    [
      ['db', 'breach'],
      ['zeta', 'breach'],
      ['beta', 'unproven'],
      ['alpha', 'ok'],
    ],
  );
  assert.equal(rows[0]?.rpo?.hoursSince, 30);
  assert.equal(rows[0]?.rto?.measuredMinutes, 20);
});

test('getting started: steps ticked from counts; the next step is the first not done', () => {
  const steps = gettingStartedSteps({ targets: 1, tasks: 0, records: 0 });
  assert.deepEqual(
    steps.map((s) => s.done),
    [true, false, false],
  );
  assert.equal(nextStep(steps)?.href, '/tasks/new');
  assert.equal(needsGettingStarted({ targets: 1, tasks: 1, records: 0 }), true);
  assert.equal(needsGettingStarted({ targets: 1, tasks: 1, records: 3 }), false);
  assert.equal(nextStep(gettingStartedSteps({ targets: 1, tasks: 1, records: 1 })), null);
});

test('live refresh: run outcomes refresh, other events do not; bursts call once', async () => {
  assert.equal(refreshesDashboard('backup_success'), true);
  assert.equal(refreshesDashboard('node_offline'), true);
  assert.equal(refreshesDashboard('test'), false);
  assert.equal(refreshesDashboard(undefined), false);
  let calls = 0;
  const d = debounce(() => {
    calls++;
  }, 20);
  d.call();
  d.call();
  d.call();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(calls, 1);
  d.call();
  d.cancel();
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(calls, 1);
});
