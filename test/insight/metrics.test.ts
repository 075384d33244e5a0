import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { seedHistory } from '../helpers/insight-seed.ts';
import { createTask, diskTarget, runAndWait } from '../backup/helpers.ts';

/** The value of one series on a /metrics page, or undefined when it is absent. */
function sample(page: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of page.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).startsWith('{') ? line.slice(name.length + 1, line.indexOf('}')) : '';
    if (want.every((w) => labelText.split(',').includes(w)) && (want.length > 0 || labelText === ''))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

test('state gauges: storage used, nodes, SLA and RTO counts agree with the dashboard after one refresh', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const seed = await seedHistory(app.diContainer.cradle.orm.em.fork(), {
    tasks: 16,
    records: 300,
    nodes: 4,
    targets: 2,
    seed: 3,
  });
  await app.diContainer.cradle.metricsCollector.refresh();
  const page = (await call(app, 'GET', '/metrics')).body;
  for (const target of seed.targets) {
    const held = seed.records.filter(
      (r) => r.targetId === target.id && (r.status === 'success' || r.status === 'partial'),
    );
    assert.equal(
      sample(page, 'backplane_storage_used_bytes', { target: target.name, type: 'local_disk' }),
      held.reduce((n, r) => n + r.fileSize, 0),
    );
  }
  for (const node of seed.nodes)
    assert.equal(
      sample(page, 'backplane_node_online', { node: node.name, role: 'agent' }),
      node.lastSeenAt ? 1 : 0,
      node.name,
    );
  const sla = (await call(app, 'GET', '/api/dashboard/sla', { token: admin })).json.data;
  assert.equal(sample(page, 'backplane_sla_breach_tasks'), sla.violated);
  assert.equal(sample(page, 'backplane_rto_exceeded_tasks'), sla.rtoExceeded);
  assert.equal(sample(page, 'backplane_rto_unmeasured_tasks'), sla.rtoUnmeasured);
  assert.ok(sla.violated > 0, 'the seed has violations, so the equality means something');
});

test('verifications and restores are counted when they end', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await mkdir(join(src, 'data'));
  await writeFile(join(src, 'data', 'a.txt'), 'metrics');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'counted',
    type: 'file',
    sourcePaths: [join(src, 'data')],
    storageTargetIds: [disk.id],
  });
  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'success');
  assert.equal(
    (await call(app, 'POST', `/api/backup/records/${record.id}/verify`, { token: admin, body: { mode: 'quick' } }))
      .status,
    200,
  );
  await app.diContainer.cradle.verifications.idle();
  assert.equal(
    (
      await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
        token: admin,
        body: { targetPath: join(await tempDir(t), 'out') },
      })
    ).status,
    200,
  );
  await app.diContainer.cradle.restores.idle();
  const page = (await call(app, 'GET', '/metrics')).body;
  assert.equal(sample(page, 'backplane_verify_runs_total', { mode: 'quick', status: 'success' }), 1);
  assert.equal(sample(page, 'backplane_restore_runs_total', { status: 'success' }), 1);
  assert.equal(sample(page, 'backplane_restore_duration_seconds_count', { status: 'success' }), 1);
});

test('every metric the Grafana dashboard queries exists on /metrics; the Prometheus example scrapes /metrics', async (t) => {
  const { app } = await build(t);
  const page = (await call(app, 'GET', '/metrics')).body;
  const exposed = new Set(
    page
      .split('\n')
      .filter((l) => l.startsWith('# TYPE '))
      .map((l) => l.split(' ')[2]),
  );
  const dashboard = JSON.parse(
    await readFile(new URL('../../deploy/grafana/backplane-dashboard.json', import.meta.url), 'utf8'),
  );
  const queried = new Set<string>();
  for (const panel of dashboard.panels)
    for (const target of panel.targets)
      for (const m of String(target.expr).matchAll(/backplane_[a-z_]+/g))
        queried.add(m[0].replace(/_(bucket|sum|count)$/, ''));
  assert.ok(queried.size >= 15, `${queried.size} metrics queried`);
  for (const name of queried) assert.ok(exposed.has(name), `${name} is on /metrics`);
  const scrape = await readFile(new URL('../../deploy/prometheus/prometheus.yml', import.meta.url), 'utf8');
  assert.match(scrape, /metrics_path: \/metrics/);
});
