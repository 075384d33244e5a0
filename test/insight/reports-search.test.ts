import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { seedHistory } from '../helpers/insight-seed.ts';

const DAY = 86_400_000;
const EVIL = "=cmd|' /C calc'!A0";

async function seeded(t: import('node:test').TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const names = Array.from({ length: 12 }, (_, i) =>
    i === 2 ? EVIL : i === 5 ? 'nightly-postgres' : i === 6 ? 'nightly-postgres-archive' : `task-${i}`,
  );
  const seed = await seedHistory(app.diContainer.cradle.orm.em.fork(), {
    tasks: 12,
    records: 400,
    nodes: 3,
    targets: 2,
    days: 60,
    seed: 5,
    taskNames: names,
  });
  return { app, admin, viewer, seed };
}

test('compliance report: rows and summary agree with the history; RTO columns; risk rules', async (t) => {
  const { app, viewer, seed } = await seeded(t);
  assert.equal((await call(app, 'GET', '/api/reports/compliance')).status, 401);
  const res = await call(app, 'GET', '/api/reports/compliance', { token: viewer, query: { days: '30' } });
  assert.equal(res.status, 200, res.body);
  const report = res.json.data;
  assert.equal(report.rangeDays, 30);
  const now = Date.now();
  for (const task of seed.tasks) {
    const row = report.tasks.find((r: { taskId: number }) => r.taskId === task.id);
    const runs = seed.records.filter((r) => r.taskId === task.id && r.startedAt.getTime() >= now - 30 * DAY);
    const successes = runs.filter((r) => r.status === 'success').length;
    assert.deepEqual(
      [row.totalRuns, row.successes, row.failures],
      [runs.length, successes, runs.filter((r) => r.status === 'failed').length],
      task.name,
    );
    assert.equal(row.successRate, runs.length ? Math.round((successes / runs.length) * 10_000) / 10_000 : 0);
    const all = seed.records.filter((r) => r.taskId === task.id);
    const last = all.at(-1);
    const lastOk = all.filter((r) => r.status === 'success').at(-1);
    assert.equal(row.lastStatus, last?.status ?? 'none');
    assert.equal(row.protectedBytes, lastOk?.fileSize ?? 0);
    assert.equal(row.lastSuccessAt, lastOk?.completedAt.toISOString());
    const measured = seed.verifies
      .filter((v) => v.taskId === task.id && v.mode === 'deep' && v.restoreMs !== null)
      .at(-1);
    const rto =
      task.rtoMinutes === 0
        ? 'not_set'
        : !measured || now - measured.completedAt.getTime() > 30 * DAY
          ? 'unmeasured'
          : measured.restoreMs! > task.rtoMinutes * 60_000
            ? 'exceeded'
            : 'ok';
    assert.equal(row.rtoStatus, rto, `${task.name} RTO`);
    const rpoMissed =
      task.slaHoursRpo > 0 && (now - (lastOk?.completedAt ?? task.createdAt).getTime()) / 3_600_000 > task.slaHoursRpo;
    const risk = !task.enabled ? 'not_applicable' : !lastOk || rpoMissed || rto === 'exceeded' ? 'at_risk' : 'ok';
    assert.equal(row.risk, risk, `${task.name} risk`);
    assert.equal(row.compliant, risk === 'ok');
  }
  const s = report.summary;
  assert.equal(s.totalTasks, seed.tasks.length);
  assert.equal(s.atRiskTasks, report.tasks.filter((r: { risk: string }) => r.risk === 'at_risk').length);
  assert.equal(s.encryptedTasks, seed.tasks.filter((x) => x.encrypt).length);
  assert.ok(s.atRiskTasks > 0 && s.compliantTasks + s.atRiskTasks <= s.enabledTasks);
  assert.equal(
    (await call(app, 'GET', '/api/reports/compliance', { token: viewer, query: { days: '400' } })).json.code,
    'INVALID_INPUT',
  );
});

test('compliance CSV: English columns, BOM, RFC 4180, a formula-looking task name neutralised, a dated file name; printable HTML', async (t) => {
  const { app, viewer, seed } = await seeded(t);
  const res = await call(app, 'GET', '/api/reports/compliance/export', { token: viewer, query: { days: '30' } });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
  assert.match(
    String(res.headers['content-disposition']),
    /^attachment; filename="backplane-compliance-\d{8}-\d{6}\.csv"$/,
  );
  assert.ok(res.body.startsWith('\ufeff'), 'UTF-8 BOM for spreadsheets');
  const rows: string[][] = parse(res.body.slice(1), { relax_column_count: false });
  assert.deepEqual(rows[0]!.slice(0, 17), [
    'Task ID',
    'Task name',
    'Type',
    'Enabled',
    'Node',
    'Encrypted',
    'Retention days',
    'RPO (hours)',
    'Runs in period',
    'Successes',
    'Failures',
    'Success rate',
    'Last status',
    'Last run (UTC)',
    'Last success (UTC)',
    'Protected bytes',
    'Compliance',
  ]);
  assert.deepEqual(rows[0]!.slice(17), [
    'RTO (minutes)',
    'RTO status',
    'Measured restore (minutes)',
    'Last deep verification',
    'Last deep verification (UTC)',
  ]);
  assert.equal(rows.length, seed.tasks.length + 1);
  const evil = rows.find((r) => r[1]!.includes('cmd|'))!;
  assert.equal(evil[1], `'${EVIL}`, 'the cell starts with an apostrophe, so no spreadsheet runs it');
  for (const row of rows.slice(1))
    for (const cell of row) assert.ok(!/^[=+\-@]/.test(cell), `no cell starts with a formula character: ${cell}`);
  assert.ok(
    rows.slice(1).every((r) => /^\d+\.\d{2}%$/.test(r[11]!)),
    'rates as percentages',
  );

  const html = await call(app, 'GET', '/api/reports/compliance', { token: viewer, query: { format: 'html' } });
  assert.equal(html.status, 200);
  assert.match(String(html.headers['content-type']), /^text\/html/);
  assert.ok(html.body.includes('<table>') && html.body.includes('nightly-postgres-archive'));
  assert.ok(html.body.includes(`<td>${EVIL}</td>`), 'the name as text (HTML runs no formulas)');
  assert.match(
    String(html.headers['content-security-policy']),
    /default-src 'none'/,
    'the page loads nothing and runs nothing',
  );
  assert.ok(!html.body.includes('<script'));
});

test('search: ranked by exact name, prefix, then fragment, across tasks, records, targets and nodes, over the whole history', async (t) => {
  const { app, viewer, seed } = await seeded(t);
  assert.equal((await call(app, 'GET', '/api/search', { query: { q: 'x' } })).status, 401);
  const find = async (q: string, limit?: number) =>
    (await call(app, 'GET', '/api/search', { token: viewer, query: { q, ...(limit ? { limit: String(limit) } : {}) } }))
      .json.data;

  const tasks = await find('nightly-postgres');
  assert.deepEqual(
    tasks.tasks.map((i: { title: string }) => i.title),
    ['nightly-postgres', 'nightly-postgres-archive'],
    'the exact name first',
  );
  const fragment = await find('GHTLY-POST');
  assert.equal(fragment.tasks.length, 2, 'case-insensitive fragments');
  assert.equal(fragment.tasks[0].kind, 'task');
  assert.match(fragment.tasks[0].url, /^\/backup\/tasks/);

  // The oldest record of the history is found by a fragment of its file name.
  const oldest = seed.records[0]!;
  const stamp = oldest.fileName.split('-').at(-1)!.slice(0, 14);
  const byFile = await find(stamp);
  assert.ok(
    byFile.records.some((r: { id: number }) => r.id === oldest.id),
    `record ${oldest.id} found by ${stamp}`,
  );
  assert.equal(byFile.records[0].url, `/backup/records?recordId=${byFile.records[0].id}`);

  const target = await find('ault-2');
  assert.deepEqual(
    target.storage.map((i: { title: string }) => i.title),
    ['vault-2'],
  );
  const node = await find('host-3.example');
  assert.deepEqual(
    node.nodes.map((i: { title: string }) => i.title),
    ['agent-003'],
  );
  assert.equal(node.nodes[0].highlight.includes('host-3.example'), true);

  const limited = await find('task', 3);
  assert.equal(limited.tasks.length, 3);
  assert.equal(limited.records.length, 3);
  assert.equal(
    limited.totalCount,
    Object.values(limited)
      .filter(Array.isArray)
      .reduce((n: number, g) => n + (g as unknown[]).length, 0),
  );
  assert.equal((await find('100%_')).totalCount, 0, 'LIKE wildcards in the query are literal');
  assert.equal((await find('   ')).totalCount, 0);
});
