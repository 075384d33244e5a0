import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { seedHistory, type Seeded } from '../helpers/insight-seed.ts';
import { BackupTaskEntity } from '../../core/db/entities/backup-task.ts';

/**
 * Every dashboard figure against the seeded history, the expected numbers computed here from the
 * seed (in JavaScript, record by record), not by the code under test.
 */
const DAY = 86_400_000;

async function seeded(t: import('node:test').TestContext, databaseUrl?: string) {
  const { app } = await build(t, databaseUrl ? { config: { databaseUrl } } : {});
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const seed = await seedHistory(app.diContainer.cradle.orm.em.fork(), {
    tasks: 24,
    records: 700,
    nodes: 5,
    targets: 3,
    days: 60,
    seed: 11,
  });
  const local = (await call(app, 'GET', '/api/nodes', { token: admin })).json.data.find(
    (n: { isLocal: boolean }) => n.isLocal,
  );
  return { app, admin, viewer, seed, local: local as { id: number; name: string } };
}

const inWindow = (seed: Seeded, days: number, now = Date.now()) =>
  seed.records.filter((r) => r.startedAt.getTime() >= now - days * DAY);
const lastSuccess = (seed: Seeded, taskId: number) =>
  seed.records.filter((r) => r.taskId === taskId && r.status === 'success').at(-1);

type Seeding = Awaited<ReturnType<typeof seeded>>;

test('dashboard stats, timeline, breakdown and node performance agree with the records; viewers read them, anonymous callers do not', async (t) => {
  await checkFigures(await seeded(t));
});

test('the same figures on PostgreSQL (scale-out mode)', async (t) => {
  const url = await scratchPostgres(t, 'backplane_insight');
  if (!url) return;
  const seeding = await seeded(t, url);
  await checkFigures(seeding);
  await checkSla(seeding);
  const found = (
    await call(seeding.app, 'GET', '/api/search', {
      token: seeding.viewer,
      query: { q: seeding.seed.records[0]!.fileName.slice(-30) },
    })
  ).json.data;
  assert.ok(
    found.records.some((r: { id: number }) => r.id === seeding.seed.records[0]!.id),
    'the oldest record found through the trigram index',
  );
  // The record list's hand-written statements on PostgreSQL: a page, a filter, the total.
  const task = seeding.seed.tasks[1]!;
  const page = await call(seeding.app, 'GET', '/api/backup/records', {
    token: seeding.viewer,
    query: { taskId: String(task.id), status: 'success', limit: '5' },
  });
  const expected = seeding.seed.records
    .filter((r) => r.taskId === task.id && r.status === 'success')
    .map((r) => r.id)
    .sort((a, b) => b - a);
  assert.deepEqual(
    page.json.data.map((r: { id: number }) => r.id),
    expected.slice(0, 5),
  );
  assert.equal(page.headers['x-total-count'], String(expected.length));
  assert.ok(
    page.json.data.every(
      (r: { storageTargetName: string; encrypted: boolean }) =>
        r.storageTargetName.startsWith('vault-') && typeof r.encrypted === 'boolean',
    ),
  );
});

async function checkFigures({ app, viewer, seed, local }: Seeding) {
  for (const path of ['stats', 'timeline', 'sla', 'cluster', 'breakdown', 'node-performance']) {
    assert.equal((await call(app, 'GET', `/api/dashboard/${path}`)).status, 401, path);
  }
  const stats = (await call(app, 'GET', '/api/dashboard/stats', { token: viewer })).json.data;
  assert.equal(stats.totalTasks, seed.tasks.length);
  assert.equal(stats.enabledTasks, seed.tasks.filter((x) => x.enabled).length);
  assert.equal(stats.totalRecords, seed.records.length);
  const month = inWindow(seed, 30);
  assert.equal(
    stats.successRate,
    Math.round((month.filter((r) => r.status === 'success').length / month.length) * 10_000) / 10_000,
  );
  assert.equal(
    stats.totalBackupBytes,
    seed.records.reduce((n, r) => n + r.fileSize, 0),
  );
  assert.equal(stats.lastBackupAt, new Date(Math.max(...seed.records.map((r) => r.startedAt.getTime()))).toISOString());
  assert.deepEqual(
    stats.recentRecords.map((r: { id: number }) => r.id),
    seed.records
      .map((r) => r.id)
      .sort((a, b) => b - a)
      .slice(0, 10),
  );
  for (const target of seed.targets) {
    const held = seed.records.filter(
      (r) => r.targetId === target.id && (r.status === 'success' || r.status === 'partial'),
    );
    const usage = stats.storageUsage.find((u: { storageTargetId: number }) => u.storageTargetId === target.id);
    assert.deepEqual(usage, {
      storageTargetId: target.id,
      targetName: target.name,
      totalSize: held.reduce((n, r) => n + r.fileSize, 0),
    });
  }

  const timeline = (await call(app, 'GET', '/api/dashboard/timeline', { token: viewer, query: { days: '14' } })).json
    .data;
  const fortnight = inWindow(seed, 14);
  const days = new Map<string, { total: number; success: number; failed: number; partial: number }>();
  for (const r of fortnight) {
    const d = days.get(r.startedAt.toISOString().slice(0, 10)) ?? { total: 0, success: 0, failed: 0, partial: 0 };
    d.total += 1;
    if (r.status === 'success') d.success += 1;
    if (r.status === 'failed') d.failed += 1;
    if (r.status === 'partial') d.partial += 1;
    days.set(r.startedAt.toISOString().slice(0, 10), d);
  }
  assert.deepEqual(
    timeline,
    [...days].sort(([a], [b]) => a.localeCompare(b)).map(([date, d]) => ({ date, ...d })),
  );
  for (const bad of ['0', '366', 'abc', '1.5']) {
    const res = await call(app, 'GET', '/api/dashboard/timeline', { token: viewer, query: { days: bad } });
    assert.deepEqual([res.status, res.json.code], [400, 'INVALID_INPUT'], `days=${bad}`);
  }

  const breakdown = (await call(app, 'GET', '/api/dashboard/breakdown', { token: viewer, query: { days: '30' } })).json
    .data;
  const count = <T>(items: T[], key: (x: T) => string) =>
    items.reduce((m, x) => m.set(key(x), (m.get(key(x)) ?? 0) + 1), new Map<string, number>());
  const asMap = (items: { key: string; count: number }[]) => new Map(items.map((i) => [i.key, i.count]));
  assert.deepEqual(
    asMap(breakdown.byType),
    count(seed.tasks, (x) => x.type),
  );
  // Tasks on node 0 run on the master: they count for the local node, under its real id.
  assert.deepEqual(
    asMap(breakdown.byNode),
    count(seed.tasks, (x) => String(x.nodeId === 0 ? local.id : x.nodeId)),
  );
  const master = breakdown.byNode.find((i: { key: string }) => i.key === String(local.id));
  assert.deepEqual(
    [master.label, master.isLocal],
    [local.name, true],
    'the master is the local node, by its name and id',
  );
  assert.ok(!breakdown.byNode.some((i: { key: string }) => i.key === '0'), 'no second id for the master');
  assert.deepEqual(
    asMap(breakdown.byStatus),
    count(month, (r) => r.status),
  );
  assert.ok(
    breakdown.byType.every(
      (x: { count: number }, i: number, all: { count: number }[]) => i === 0 || all[i - 1]!.count >= x.count,
    ),
    'sorted by count',
  );

  const performance = (
    await call(app, 'GET', '/api/dashboard/node-performance', { token: viewer, query: { days: '30' } })
  ).json.data;
  for (const node of [{ id: 0, row: local.id }, ...seed.nodes.map((n) => ({ id: n.id, row: n.id }))]) {
    const runs = month.filter((r) => r.nodeId === node.id);
    const ok = runs.filter((r) => r.status === 'success');
    const entry = performance.find((p: { nodeId: number }) => p.nodeId === node.row);
    assert.ok(entry, `node ${node.row} listed`);
    assert.equal(entry.totalRuns, runs.length);
    assert.equal(entry.successRuns, ok.length);
    assert.equal(entry.failedRuns, runs.filter((r) => r.status === 'failed').length);
    assert.equal(
      entry.totalBytes,
      ok.reduce((n, r) => n + r.fileSize, 0),
    );
    const avg = ok.length ? ok.reduce((n, r) => n + r.durationMs, 0) / ok.length : 0;
    assert.ok(Math.abs(entry.avgDurationSecs - avg / 1000) < 0.11, `${entry.avgDurationSecs} ~ ${avg / 1000}`);
  }
  assert.equal(performance.find((p: { nodeId: number }) => p.nodeId === local.id).isLocal, true);

  // One id per place across the insight routes: a client joins them (and /api/nodes) on it.
  const cluster = (await call(app, 'GET', '/api/dashboard/cluster', { token: viewer })).json.data;
  const nodes = new Map(
    cluster.nodes.map((n: { id: number; name: string; isLocal: boolean; taskCount: number }) => [n.id, n]),
  );
  for (const item of breakdown.byNode as { key: string; label: string; count: number; isLocal: boolean }[]) {
    const node = nodes.get(Number(item.key)) as { name: string; isLocal: boolean; taskCount: number } | undefined;
    const perf = performance.find((p: { nodeId: number }) => p.nodeId === Number(item.key));
    assert.ok(node && perf, `byNode key ${item.key} is a node of the cluster and of node-performance`);
    assert.deepEqual([item.label, item.isLocal, item.count], [node.name, node.isLocal, node.taskCount]);
    assert.deepEqual([perf.nodeName, perf.isLocal], [node.name, node.isLocal]);
  }
}

test('cluster: version drift and status per node; the master is the local node and current', async (t) => {
  const { app, viewer, seed, local } = await seeded(t);
  const cluster = (await call(app, 'GET', '/api/dashboard/cluster', { token: viewer })).json.data;
  assert.equal(cluster.totalNodes, seed.nodes.length + 1);
  assert.equal(cluster.onlineNodes, seed.nodes.filter((n) => n.lastSeenAt).length + 1);
  assert.equal(cluster.offlineNodes, seed.nodes.filter((n) => !n.lastSeenAt).length);
  assert.equal(cluster.outdatedAgents, seed.nodes.filter((n) => n.agentVersion === '0.0.9').length);
  for (const n of seed.nodes) {
    const row = cluster.nodes.find((x: { id: number }) => x.id === n.id);
    assert.equal(
      row.versionStatus,
      n.agentVersion === '' ? 'unknown' : n.agentVersion === '0.0.9' ? 'outdated' : 'current',
      n.name,
    );
    assert.equal(row.taskCount, seed.tasks.filter((x) => x.nodeId === n.id).length);
  }
  const master = cluster.nodes.find((x: { id: number }) => x.id === local.id);
  assert.deepEqual(
    [master.isLocal, master.versionStatus, master.status, master.agentVersion],
    [true, 'current', 'online', cluster.masterVersion],
  );
  assert.equal(master.taskCount, seed.tasks.filter((x) => x.nodeId === 0).length);
});

test('sla: RPO violations as BackupX reports them, and RTO as evidence from recent deep verifications', async (t) => {
  const seeding = await seeded(t);
  // One violating task runs on the master (node 0), to show how violations name its place.
  const now = Date.now();
  const violating = seeding.seed.tasks.find(
    (x) =>
      x.enabled &&
      x.slaHoursRpo > 0 &&
      x.nodeId !== 0 &&
      (now - (lastSuccess(seeding.seed, x.id)?.completedAt ?? x.createdAt).getTime()) / 3_600_000 > x.slaHoursRpo,
  )!;
  await seeding.app.diContainer.cradle.orm.em
    .fork()
    .nativeUpdate(BackupTaskEntity, { id: violating.id }, { nodeId: 0 });
  violating.nodeId = 0;
  await checkSla(seeding);
});

async function checkSla({ app, viewer, seed, local }: Seeding) {
  const sla = (await call(app, 'GET', '/api/dashboard/sla', { token: viewer })).json.data;
  const now = Date.now();
  const withRpo = seed.tasks.filter((x) => x.enabled && x.slaHoursRpo > 0);
  const violated = withRpo.filter(
    (x) => (now - (lastSuccess(seed, x.id)?.completedAt ?? x.createdAt).getTime()) / 3_600_000 > x.slaHoursRpo,
  );
  assert.ok(
    violated.length > 0 && violated.length < withRpo.length,
    `the seed covers both: ${violated.length} of ${withRpo.length}`,
  );
  assert.equal(sla.totalTasksWithSla, withRpo.length);
  assert.equal(sla.violated, violated.length);
  assert.equal(sla.compliant, withRpo.length - violated.length);
  assert.deepEqual(
    sla.violations.map((v: { taskId: number }) => v.taskId),
    violated.map((x) => x.id),
  );
  for (const v of sla.violations) {
    const last = lastSuccess(seed, v.taskId);
    assert.equal(v.neverSucceeded, !last);
    if (last) assert.equal(v.lastSuccessAt, last.completedAt.toISOString());
    const task = seed.tasks.find((x) => x.id === v.taskId)!;
    assert.deepEqual(
      [v.nodeId, v.isLocal],
      task.nodeId === 0 ? [local.id, true] : [task.nodeId, false],
      'placed as the other insight routes place it',
    );
  }
  assert.ok(
    sla.violations.some((v: { isLocal: boolean }) => v.isLocal) ||
      !seed.tasks.some((x) => x.nodeId === 0 && violated.includes(x)),
    'a master task among the violations is marked local',
  );

  const withRto = seed.tasks.filter((x) => x.enabled && x.rtoMinutes > 0);
  assert.equal(sla.totalTasksWithRto, withRto.length);
  const expected = new Map(
    withRto.map((x) => {
      const measured = seed.verifies
        .filter((v) => v.taskId === x.id && v.mode === 'deep' && v.restoreMs !== null)
        .at(-1);
      const status =
        !measured || now - measured.completedAt.getTime() > 30 * DAY
          ? 'unmeasured'
          : measured.restoreMs! > x.rtoMinutes * 60_000
            ? 'exceeded'
            : 'ok';
      return [x.id, { status, verifyId: measured?.id ?? null }];
    }),
  );
  for (const row of sla.rto) {
    assert.equal(row.rtoStatus, expected.get(row.taskId)!.status, `task ${row.taskId}`);
    assert.equal(
      row.verifyRecordId,
      expected.get(row.taskId)!.verifyId,
      `task ${row.taskId}: the verification that measured it`,
    );
  }
  const statuses = [...expected.values()].map((e) => e.status);
  assert.deepEqual(
    [sla.rtoOk, sla.rtoExceeded, sla.rtoUnmeasured],
    ['ok', 'exceeded', 'unmeasured'].map((s) => statuses.filter((x) => x === s).length),
  );
  assert.ok(sla.rtoUnmeasured > 0 && sla.rtoOk + sla.rtoExceeded > 0, 'the seed covers measured and unmeasured tasks');
}
