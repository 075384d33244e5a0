import { test } from 'node:test';
import assert from 'node:assert/strict';
import { everyDurationMs, parseSchedule, scheduleError } from '../../core/lib/schedule.ts';
import { CronTimer } from '../../core/backup/cron-timer.ts';
import { cronPreview } from '../../packages/console/src/features/tasks/cron-preview.ts';
import { TestClock } from '../helpers/test-clock.ts';

const H = 3_600_000;

test('@every takes a Go duration (robfig/cron), in whole seconds', () => {
  assert.equal(everyDurationMs('1h'), H);
  assert.equal(everyDurationMs('1h30m'), 1.5 * H);
  assert.equal(everyDurationMs('1.5h'), 1.5 * H);
  assert.equal(everyDurationMs('90s'), 90_000);
  assert.equal(everyDurationMs('2m500ms'), 120_000, 'sub-second parts are dropped, as robfig drops them');
  assert.equal(everyDurationMs('.5m'), 30_000);
  for (const bad of ['', '1', 'h', '1x', '1h 30m', '-1h', '+1h', '500ms', '0s', '1h-', '3000000h']) {
    assert.throws(() => everyDurationMs(bad), /duration|second|longest/, bad);
  }
});

test("@every fires on a fixed grid from the epoch; other expressions stay croner's", () => {
  const from = new Date('2026-03-02T10:15:00Z');
  assert.equal(parseSchedule('@every 1h').nextRun(from)?.toISOString(), '2026-03-02T11:00:00.000Z');
  assert.equal(parseSchedule('@EVERY   6h').nextRun(from)?.toISOString(), '2026-03-02T12:00:00.000Z');
  assert.equal(
    parseSchedule('@every 1h', 'Asia/Kolkata').nextRun(new Date('2026-03-02T11:00:00Z'))?.toISOString(),
    '2026-03-02T12:00:00.000Z',
    'strictly after, whatever the zone',
  );
  assert.equal(parseSchedule('0 2 * * *', 'UTC').nextRun(from)?.toISOString(), '2026-03-03T02:00:00.000Z');
  assert.equal(parseSchedule('@hourly', 'UTC').nextRun(from)?.toISOString(), '2026-03-02T11:00:00.000Z');
  assert.equal(scheduleError('@every 45m'), undefined);
  assert.match(scheduleError('@every 45q') ?? '', /not a duration/);
  assert.match(scheduleError('@every') ?? '', /needs a duration/);
  assert.ok(scheduleError('61 * * * *'), "croner's refusals still come through");
});

test('a timer on @every fires on its grid as the clock advances', async () => {
  const clock = new TestClock(new Date('2026-03-01T10:20:00Z'));
  const fires: string[] = [];
  const job = new CronTimer('@every 30m', { timezone: 'UTC', clock }, (at) => fires.push(at.toISOString()));
  assert.equal(job.nextRun()?.toISOString(), '2026-03-01T10:30:00.000Z');
  await clock.advance(70 * 60_000);
  assert.deepEqual(fires, ['2026-03-01T10:30:00.000Z', '2026-03-01T11:00:00.000Z', '2026-03-01T11:30:00.000Z']);
  job.stop();
  assert.equal(clock.pending, 0);
});

test("the console's preview reads every expression as the server does", () => {
  const from = new Date('2026-03-02T10:15:42Z');
  for (const expr of [
    '@every 1h',
    '@every 90m',
    '@every 1h30m',
    '@every 7h',
    '@every 45s',
    '@every 1.5h',
    '@every 2m500ms',
    '0 2 * * *',
    '@daily',
    '*/15 * * * *',
  ]) {
    const preview = cronPreview(expr, { from, timeZone: 'Europe/Berlin', count: 4 });
    assert.equal(preview.kind, 'valid', expr);
    const schedule = parseSchedule(expr, 'Europe/Berlin');
    const expected: string[] = [];
    for (
      let at: Date | null = from;
      expected.length < 4 && at;
      expected.push((at = schedule.nextRun(at))!.toISOString())
    );
    assert.deepEqual(preview.kind === 'valid' && preview.next.map((d) => d.toISOString()), expected, expr);
  }
  for (const bad of ['@every', '@every 1x', '@every 1h 30m', '@every 500ms', '@every 3000000h']) {
    const preview = cronPreview(bad, { from });
    assert.deepEqual(preview, { kind: 'invalid', error: scheduleError(bad) }, bad);
  }
  const p = cronPreview('@every 1h', { from, count: 1 });
  assert.equal(p.kind === 'valid' && p.description, 'Every 1h');
});
