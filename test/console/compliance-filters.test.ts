import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  complianceExportPath,
  complianceHtmlPath,
  complianceReasons,
  complianceSearch,
  filterRows,
  parseComplianceSearch,
  type RiskRow,
} from '../../packages/console/src/features/reports/compliance-filters.ts';

test('querystring: parsed with defaults and bounds, written without defaults', () => {
  assert.deepEqual(parseComplianceSearch(''), { days: 30, risk: 'all', q: '' });
  assert.deepEqual(parseComplianceSearch('?days=90&risk=at_risk&q=%20db%20'), { days: 90, risk: 'at_risk', q: 'db' });
  assert.deepEqual(parseComplianceSearch('days=0&risk=bogus'), { days: 30, risk: 'all', q: '' });
  assert.equal(parseComplianceSearch('days=366').days, 30);
  assert.equal(parseComplianceSearch('days=7.5').days, 30);
  assert.equal(complianceSearch({ days: 30, risk: 'all', q: '' }), '');
  assert.equal(complianceSearch({ days: 7, risk: 'ok', q: 'web' }), 'days=7&risk=ok&q=web');
  assert.equal(complianceExportPath({ days: 7 }), '/api/reports/compliance/export?days=7');
  assert.equal(complianceHtmlPath({ days: 7 }), '/api/reports/compliance?days=7&format=html');
});

const NOW = Date.parse('2026-03-10T12:00:00Z');
const base: RiskRow = {
  taskName: 'Web',
  enabled: true,
  risk: 'ok',
  slaHoursRpo: 24,
  lastSuccessAt: '2026-03-10T00:00:00Z',
  rtoMinutes: 0,
  rtoStatus: 'not_set',
  measuredRestoreMinutes: null,
};

test('rows filter by risk and by name', () => {
  const rows = [base, { ...base, taskName: 'Database', risk: 'at_risk' as const }];
  assert.deepEqual(
    filterRows(rows, { risk: 'at_risk', q: '' }).map((r) => r.taskName),
    ['Database'],
  );
  assert.deepEqual(
    filterRows(rows, { risk: 'all', q: 'WE' }).map((r) => r.taskName),
    ['Web'],
  );
});

test('reasons follow the server rules', () => {
  assert.deepEqual(complianceReasons(base, NOW), [{ key: 'ok', params: {} }]);
  assert.deepEqual(
    complianceReasons({ ...base, enabled: false, risk: 'not_applicable' }, NOW).map((r) => r.key),
    ['disabled'],
  );
  const { lastSuccessAt: _drop, ...never } = base;
  assert.deepEqual(
    complianceReasons({ ...never, risk: 'at_risk' }, NOW).map((r) => r.key),
    ['neverSucceeded'],
  );
  assert.deepEqual(complianceReasons({ ...base, risk: 'at_risk', lastSuccessAt: '2026-03-08T12:00:00Z' }, NOW), [
    { key: 'rpoMissed', params: { hours: 48, rpo: 24 } },
  ]);
  assert.deepEqual(
    complianceReasons(
      { ...base, risk: 'at_risk', rtoMinutes: 10, rtoStatus: 'exceeded', measuredRestoreMinutes: 14 },
      NOW,
    ),
    [{ key: 'rtoExceeded', params: { measured: 14, rto: 10 } }],
  );
  assert.deepEqual(
    complianceReasons({ ...base, rtoMinutes: 10, rtoStatus: 'unmeasured' }, NOW).map((r) => r.key),
    ['rtoUnmeasured'],
  );
});
