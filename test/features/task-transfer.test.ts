import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, userWithRole, nodeWithToken, tempDir } from '../helpers/build.ts';

const FIXTURE = new URL('../fixtures/backupx-export-v1.json', import.meta.url);
const referenceExport = async () => JSON.parse(await readFile(FIXTURE, 'utf8'));

const EXPORTED_FIELDS = [
  'name',
  'type',
  'enabled',
  'cronExpr',
  'sourcePath',
  'sourcePaths',
  'excludePatterns',
  'dbHost',
  'dbPort',
  'dbUser',
  'dbName',
  'dbPath',
  'storageTargetNames',
  'replicationTargetNames',
  'nodeName',
  'nodeLabel',
  'dependsOnTaskNames',
  'tags',
  'compression',
  'encrypt',
  'retentionDays',
  'maxBackups',
  'keepDaily',
  'keepWeekly',
  'keepMonthly',
  'keepYearly',
  'verifyEnabled',
  'verifyCronExpr',
  'verifyMode',
  'slaHoursRpo',
  'rtoMinutes',
  'timeoutMinutes',
  'alertOnConsecutiveFails',
  'backupMode',
  'diffFullIntervalDays',
  'maintenanceWindows',
].sort();

async function appWithAdmin(t: TestContext) {
  const { app } = await build(t);
  return { app, admin: await setupAdmin(app) };
}

async function target(t: TestContext, app: FastifyInstance, token: string, name: string) {
  const basePath = await tempDir(t);
  const res = await call(app, 'POST', '/api/storage-targets', {
    token,
    body: { name, type: 'local_disk', config: { basePath } },
  });
  assert.equal(res.status, 200, res.body);
  return { id: res.json.data.id as number, basePath };
}

async function createTask(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  const res = await call(app, 'POST', '/api/backup/tasks', { token, body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

/** The import's answer (BackupX's array of results) with the counts BackupX's console derives from it. */
async function importFile(app: FastifyInstance, token: string, body: unknown) {
  const res = await call(app, 'POST', '/api/backup/tasks/import', { token, body });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.code, 'OK');
  const results = res.json.data as { success: boolean; skipped: boolean }[];
  assert.ok(Array.isArray(results), res.body);
  const created = results.filter((r) => r.success && !r.skipped).length;
  const skipped = results.filter((r) => r.skipped).length;
  return {
    results: results as any[],
    total: results.length,
    created,
    skipped,
    failed: results.length - created - skipped,
  };
}

async function details(app: FastifyInstance, token: string) {
  const list = await call(app, 'GET', '/api/backup/tasks', { token });
  const out = new Map<string, any>();
  for (const { id, name } of list.json.data)
    out.set(name, (await call(app, 'GET', `/api/backup/tasks/${id}`, { token })).json.data);
  return out;
}

const auditActions = async (app: FastifyInstance, token: string, action: string) =>
  (
    await call(app, 'GET', '/api/audit-logs', { token, query: { category: 'backup_task', action } })
  ).json.data.items.filter((e: { action: string }) => e.action === action);

test('export: a v1 JSON attachment without envelope, names for references, no password or credential', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  const disk = await target(t, app, admin, 'disk');
  const disk2 = await target(t, app, admin, 'disk-2');
  const files = await createTask(app, admin, {
    name: 'files',
    type: 'file',
    sourcePaths: ['/srv/a', '/srv/b'],
    storageTargetIds: [disk.id],
    replicationTargetIds: [disk2.id],
  });
  const pg = await createTask(app, admin, {
    name: 'pg',
    type: 'pgsql',
    dbHost: 'db.internal',
    dbPort: 5432,
    dbUser: 'backup',
    dbName: 'app',
    dbPassword: 'pg-secret-pw',
    storageTargetIds: [disk2.id, disk.id],
    dependsOnTaskIds: [files.id],
    tags: ['prod', 'db'],
  });

  const res = await call(app, 'GET', '/api/backup/tasks/export', { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.match(
    String(res.headers['content-disposition']),
    /^attachment; filename="backplane-tasks-\d{8}-\d{6}\.json"$/,
  );
  const file = res.json;
  assert.deepEqual(
    Object.keys(file).sort(),
    ['exportedAt', 'notice', 'taskCount', 'tasks', 'version'],
    'the file itself, not an envelope',
  );
  assert.equal(file.version, 'v1');
  assert.equal(file.taskCount, 2);
  assert.ok(Math.abs(Date.parse(file.exportedAt) - Date.now()) < 60_000);
  assert.match(file.notice, /password/);
  assert.deepEqual(
    file.tasks.map((x: { name: string }) => x.name),
    ['files', 'pg'],
  );
  for (const task of file.tasks) assert.deepEqual(Object.keys(task).sort(), EXPORTED_FIELDS);

  const exportedPg = file.tasks[1];
  assert.equal(exportedPg.type, 'postgresql');
  assert.deepEqual(exportedPg.storageTargetNames, ['disk-2', 'disk'], 'target order kept');
  assert.deepEqual(exportedPg.dependsOnTaskNames, ['files']);
  assert.equal(exportedPg.nodeName, '', 'the master has no node name');
  assert.equal(exportedPg.tags, 'prod,db');
  assert.deepEqual(
    [exportedPg.dbHost, exportedPg.dbPort, exportedPg.dbUser, exportedPg.dbName],
    ['db.internal', 5432, 'backup', 'app'],
  );
  assert.equal(file.tasks[0].sourcePath, '/srv/a');
  assert.deepEqual(file.tasks[0].replicationTargetNames, ['disk-2']);
  assert.deepEqual(exportedPg.replicationTargetNames, []);
  assert.deepEqual(file.tasks[0].sourcePaths, ['/srv/a', '/srv/b']);

  // Neither the password (nor its mask) nor any storage target configuration is in the file.
  for (const secret of [
    'pg-secret-pw',
    'dbPassword',
    '********',
    'maskedFields',
    disk.basePath,
    disk2.basePath,
    'basePath',
  ]) {
    assert.ok(!res.body.includes(secret), `the export contains ${secret}`);
  }

  // ids selects (blanks and repeats allowed); bad values are refused; unknown ids are a 404.
  const one = await call(app, 'GET', '/api/backup/tasks/export', { token: admin, query: { ids: String(pg.id) } });
  assert.equal(one.status, 200, one.body);
  assert.deepEqual(
    one.json.tasks.map((x: { name: string }) => x.name),
    ['pg'],
  );
  assert.equal(one.json.taskCount, 1);
  assert.deepEqual(
    one.json.tasks[0].dependsOnTaskNames,
    ['files'],
    'a dependency outside the selection is still named',
  );
  const both = await call(app, 'GET', '/api/backup/tasks/export', {
    token: admin,
    query: { ids: ` ${pg.id} ,${files.id},${pg.id}` },
  });
  assert.equal(both.json.taskCount, 2);
  for (const ids of ['abc', '', '1,,2', '0', '-1', '1.5', '1;2', '99999999999999999']) {
    const bad = await call(app, 'GET', '/api/backup/tasks/export', { token: admin, query: { ids } });
    assert.equal(bad.status, 400, `ids=${ids}: ${bad.body}`);
    assert.equal(bad.json.code, 'INVALID_INPUT');
  }
  const missing = await call(app, 'GET', '/api/backup/tasks/export', {
    token: admin,
    query: { ids: `${files.id},999` },
  });
  assert.equal(missing.status, 404);
  assert.equal(missing.json.code, 'BACKUP_TASK_NOT_FOUND');
  assert.match(missing.json.message, /999/);

  const empty = await appWithAdmin(t);
  const none = await call(empty.app, 'GET', '/api/backup/tasks/export', { token: empty.admin });
  assert.equal(none.status, 200);
  assert.deepEqual([none.json.taskCount, none.json.tasks], [0, []]);

  const exports = await auditActions(app, admin, 'export');
  assert.deepEqual(
    exports.map((e: { detail: string }) => e.detail).sort(),
    ['count=1 ids=' + pg.id, `count=2`, `count=2 ids=${pg.id},${files.id}`].sort(),
  );
});

test('round trip: an export imported into a fresh server reproduces the tasks (except the password)', async (t) => {
  const a = await appWithAdmin(t);
  const diskA = await target(t, a.app, a.admin, 'disk');
  const disk2A = await target(t, a.app, a.admin, 'disk-2');
  const offsiteA = await target(t, a.app, a.admin, 'offsite');
  const nodeA = await nodeWithToken(a.app, 'node-1');
  const files = await createTask(a.app, a.admin, {
    name: 'files',
    type: 'file',
    enabled: false,
    cronExpr: '15 1 * * *',
    sourcePaths: ['/srv/data', '/etc'],
    excludePatterns: ['*.tmp', 'cache/'],
    storageTargetIds: [disk2A.id, diskA.id],
    tags: 'prod,web',
    retentionDays: 0,
    maxBackups: 0,
    keepDaily: 7,
    keepWeekly: 4,
    keepMonthly: 12,
    keepYearly: 2,
    compression: 'none',
    encrypt: false,
    slaHoursRpo: 26,
    rtoMinutes: 45,
    alertOnConsecutiveFails: 3,
    verifyEnabled: true,
    verifyCronExpr: '0 4 * * 0',
    verifyMode: 'deep',
    maintenanceWindows: 'days=mon|fri,time=22:00-02:00',
    nodeLabel: 'web-pool',
  });
  const pg = await createTask(a.app, a.admin, {
    name: 'pg',
    type: 'postgresql',
    dbHost: 'db.internal',
    dbPort: 5433,
    dbUser: 'backup',
    dbName: 'app',
    dbPassword: 'pg-secret-pw',
    storageTargetIds: [diskA.id],
    replicationTargetIds: [offsiteA.id, disk2A.id],
    nodeId: nodeA.id,
    dependsOnTaskIds: [files.id],
    compression: 'gzip',
    retentionDays: 14,
    maxBackups: 5,
  });
  await createTask(a.app, a.admin, {
    name: 'lite',
    type: 'sqlite',
    dbPath: '/var/lib/app.db',
    storageTargetIds: [disk2A.id],
    cronExpr: '@daily',
  });
  await createTask(a.app, a.admin, {
    name: 'after-all',
    type: 'file',
    sourcePaths: ['/srv/reports'],
    storageTargetIds: [diskA.id],
    dependsOnTaskIds: [pg.id, files.id],
  });
  const exportA = await call(a.app, 'GET', '/api/backup/tasks/export', { token: a.admin });
  assert.equal(exportA.status, 200);

  // Server B: the same names under other ids.
  const b = await appWithAdmin(t);
  await target(t, b.app, b.admin, 'unrelated');
  await target(t, b.app, b.admin, 'disk-2');
  await target(t, b.app, b.admin, 'disk');
  await target(t, b.app, b.admin, 'offsite');
  await nodeWithToken(b.app, 'node-0');
  const nodeB = await nodeWithToken(b.app, 'node-1');
  assert.notEqual(nodeB.id, nodeA.id);

  const report = await importFile(b.app, b.admin, exportA.json);
  assert.deepEqual([report.total, report.created, report.skipped, report.failed], [4, 4, 0, 0], JSON.stringify(report));
  for (const r of report.results) assert.deepEqual([r.success, r.skipped, r.code], [true, false, undefined]);
  const byName = new Map<string, any>(report.results.map((r: { name: string }) => [r.name, r]));
  assert.ok(
    byName.get('pg').warnings.some((w: string) => /password/.test(w)),
    'the password has to be set again',
  );
  assert.equal(byName.get('pg').error, byName.get('pg').warnings.join(' '), "the note BackupX's console shows");
  assert.deepEqual(byName.get('files').warnings, []);
  assert.ok(!('error' in byName.get('files')), 'nothing to say: no error, as BackupX omits it');
  assert.deepEqual(byName.get('lite').warnings, [], 'SQLite takes no password');

  // Equal details, except ids, timestamps and the password.
  const [detailsA, detailsB] = [await details(a.app, a.admin), await details(b.app, b.admin)];
  const idToName = (all: Map<string, any>) => new Map<number, string>([...all.values()].map((d) => [d.id, d.name]));
  const targetsOf = async (app: FastifyInstance, token: string) =>
    new Map<number, string>(
      (await call(app, 'GET', '/api/storage-targets', { token })).json.data.map((x: { id: number; name: string }) => [
        x.id,
        x.name,
      ]),
    );
  const [targetsA, targetsB] = [await targetsOf(a.app, a.admin), await targetsOf(b.app, b.admin)];
  // Ids differ between the servers: references are compared by name.
  const comparable = (d: any, tasks: Map<number, string>, targets: Map<number, string>) => {
    const {
      id,
      createdAt,
      updatedAt,
      storageTargetId,
      storageTargetIds,
      replicationTargetIds,
      nodeId,
      dependsOnTaskIds,
      dbPassword,
      maskedFields,
      ...rest
    } = d;
    return {
      ...rest,
      dependsOn: dependsOnTaskIds.map((x: number) => tasks.get(x)),
      replicas: replicationTargetIds.map((x: number) => targets.get(x)),
    };
  };
  assert.deepEqual([...detailsB.keys()].sort(), [...detailsA.keys()].sort());
  for (const [name, dA] of detailsA) {
    const dB = detailsB.get(name);
    assert.deepEqual(comparable(dB, idToName(detailsB), targetsB), comparable(dA, idToName(detailsA), targetsA), name);
    assert.equal(dB.id, byName.get(name).taskId);
  }
  assert.equal(detailsB.get('pg').nodeId, nodeB.id, 'the node resolved by name');
  assert.equal(detailsB.get('pg').nodeName, 'node-1');
  assert.deepEqual(
    detailsB.get('pg').replicationTargetIds.map((id: number) => targetsB.get(id)),
    ['offsite', 'disk-2'],
  );
  assert.deepEqual(detailsB.get('files').storageTargetNames, ['disk-2', 'disk']);
  assert.deepEqual(
    detailsB.get('after-all').dependsOnTaskIds.map((id: number) => idToName(detailsB).get(id)),
    ['pg', 'files'],
  );
  assert.equal(detailsA.get('pg').dbPassword, '********');
  assert.equal(detailsB.get('pg').dbPassword, '', 'no password travelled');

  // Exporting B gives the same tasks back.
  const exportB = await call(b.app, 'GET', '/api/backup/tasks/export', { token: b.admin });
  assert.deepEqual(exportB.json.tasks, exportA.json.tasks);

  const imports = await auditActions(b.app, b.admin, 'import');
  assert.equal(imports.length, 4, 'one audit entry per created task');
  assert.ok(
    imports.every(
      (e: { detail: string; targetType: string }) => e.detail === 'import' && e.targetType === 'backup_task',
    ),
  );
  assert.deepEqual(imports.map((e: { targetName: string }) => e.targetName).sort(), [
    'after-all',
    'files',
    'lite',
    'pg',
  ]);

  // The same file again: every name exists, nothing changes.
  const again = await importFile(b.app, b.admin, exportA.json);
  assert.deepEqual([again.created, again.skipped, again.failed], [0, 4, 0]);
  for (const r of again.results)
    assert.deepEqual([r.success, r.skipped, r.taskId], [true, true, byName.get(r.name).taskId]);
  assert.equal((await auditActions(b.app, b.admin, 'import')).length, 4);
});

test('import of a reference (BackupX) export: names resolved, dependencies linked, zero values as the reference meant them', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  const nas = await target(t, app, admin, 'nas-backup');
  const offsite = await target(t, app, admin, 'offsite-s3');
  const fixture = await referenceExport();

  const report = await importFile(app, admin, fixture);
  assert.deepEqual([report.total, report.created, report.skipped, report.failed], [3, 3, 0, 0], JSON.stringify(report));
  assert.deepEqual(
    report.results.map((r: { name: string }) => r.name),
    ['website-files', 'shop-mysql', 'billing-postgres'],
  );
  const [web, shop, billing] = report.results;
  assert.equal(shop.warnings.length, 1);
  assert.match(shop.warnings[0], /password/);
  assert.ok(billing.warnings.some((w: string) => /password/.test(w)));
  assert.deepEqual(web.warnings, []);

  const all = await details(app, admin);
  const w = all.get('website-files');
  assert.equal(w.id, web.taskId);
  assert.equal(w.nodeId, 0, '"本机 (Local)" is the master');
  assert.deepEqual(w.storageTargetIds, [nas.id]);
  assert.deepEqual(w.sourcePaths, ['/var/www/html', '/etc/nginx']);
  assert.deepEqual(w.excludePatterns, ['*.log', 'cache/']);
  assert.deepEqual([w.compression, w.encrypt, w.retentionDays, w.maxBackups], ['gzip', true, 30, 10]);
  assert.deepEqual(
    [w.verifyEnabled, w.verifyCronExpr, w.verifyMode, w.slaHoursRpo, w.alertOnConsecutiveFails],
    [true, '0 4 * * 0', 'quick', 26, 2],
  );
  assert.equal(w.maintenanceWindows, 'days=mon|tue|wed|thu|fri,time=01:00-05:00;days=sat|sun,time=00:00-08:00');
  assert.equal(w.tags, 'prod,web');
  assert.deepEqual(
    [w.keepDaily, w.keepWeekly, w.keepMonthly, w.keepYearly, w.rtoMinutes],
    [0, 0, 0, 0, 0],
    'fields v1 lacks take our defaults',
  );

  const s = all.get('shop-mysql');
  assert.deepEqual(s.dependsOnTaskIds, [web.taskId], 'linked by name in the second pass');
  assert.deepEqual(s.replicationTargetIds, [offsite.id]);
  assert.deepEqual(
    [s.type, s.dbHost, s.dbPort, s.dbUser, s.dbName, s.dbPassword],
    ['mysql', '10.0.0.12', 3306, 'backup', 'shop', ''],
  );
  // v1 leaves zero values out: no `encrypt` is false and no `retentionDays` is 0, as BackupX reads them.
  assert.deepEqual([s.encrypt, s.retentionDays, s.maxBackups, s.compression], [false, 0, 7, 'zstd']);

  const p = all.get('billing-postgres');
  assert.deepEqual(
    [p.type, p.enabled, p.verifyMode, p.retentionDays, p.maxBackups, p.alertOnConsecutiveFails],
    ['postgresql', false, 'deep', 90, 30, 3],
  );
  assert.deepEqual(p.dependsOnTaskIds, []);
  assert.equal(p.cronExpr, '0 3 * * *');

  // Importing it again skips every task and changes nothing.
  const again = await importFile(app, admin, fixture);
  assert.deepEqual([again.created, again.skipped, again.failed], [0, 3, 0]);
  assert.ok(again.results.every((r: { skipped: boolean; success: boolean }) => r.skipped && r.success));
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'], '3');
  assert.deepEqual((await details(app, admin)).get('shop-mysql').dependsOnTaskIds, [web.taskId]);
  assert.equal((await auditActions(app, admin, 'import')).length, 3);
});

test('import failures stay with their task; a file that is not v1 is refused whole', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  await target(t, app, admin, 'nas-backup');
  await target(t, app, admin, 'offsite-s3');
  const fixture = await referenceExport();
  fixture.tasks[2].storageTargetNames = ['nas-backup', 'missing-target'];
  const base = { type: 'file', sourcePath: '/srv/x', storageTargetNames: ['nas-backup'] };
  fixture.tasks.push(
    { ...base, name: 'on-ghost-node', nodeName: 'ghost-node' },
    { ...base, name: 'unknown-replica', replicationTargetNames: ['offsite-s3', 'tape'] },
    { ...base, name: 'oracle-db', type: 'oracle' },
    { ...base, name: 'no-target', storageTargetNames: null },
    { ...base, name: 'late-dependency', dependsOnTaskNames: ['nowhere', 'shop-mysql', 'late-dependency'] },
    { ...base, name: 'cycle-a', dependsOnTaskNames: ['cycle-b'] },
    { ...base, name: 'cycle-b', dependsOnTaskNames: ['cycle-a'] },
  );

  const report = await importFile(app, admin, fixture);
  assert.deepEqual(
    [report.total, report.created, report.skipped, report.failed],
    [10, 5, 0, 5],
    JSON.stringify(report),
  );
  const r = new Map<string, any>(report.results.map((x: { name: string }) => [x.name, x]));
  assert.deepEqual(
    [r.get('billing-postgres').success, r.get('billing-postgres').taskId, r.get('billing-postgres').code],
    [false, undefined, 'BACKUP_TASK_IMPORT_REFERENCE_NOT_FOUND'],
  );
  assert.match(r.get('billing-postgres').error, /"missing-target"/);
  assert.equal(r.get('on-ghost-node').code, 'BACKUP_TASK_IMPORT_REFERENCE_NOT_FOUND');
  assert.match(r.get('on-ghost-node').error, /"ghost-node"/);
  assert.equal(r.get('unknown-replica').code, 'BACKUP_TASK_IMPORT_REFERENCE_NOT_FOUND');
  assert.match(r.get('unknown-replica').error, /^Storage target "tape" does not exist/);
  assert.equal(r.get('oracle-db').code, 'BACKUP_TASK_TYPE_UNSUPPORTED');
  assert.match(r.get('oracle-db').error, /Task type "oracle" is not supported/);
  assert.equal(r.get('no-target').code, 'BACKUP_TASK_INVALID');
  assert.match(r.get('no-target').error, /storageTargetNames/);

  // A dependency that cannot be linked is a warning on a task that was created.
  const late = r.get('late-dependency');
  assert.equal(late.success, true);
  assert.ok(late.warnings.some((w: string) => /"nowhere"/.test(w)));
  assert.ok(late.warnings.some((w: string) => /itself/.test(w)));
  assert.ok(
    r.get('cycle-b').warnings.some((w: string) => /cycle/.test(w)),
    JSON.stringify(r.get('cycle-b')),
  );
  const all = await details(app, admin);
  assert.deepEqual(all.get('late-dependency').dependsOnTaskIds, [r.get('shop-mysql').taskId]);
  assert.deepEqual(all.get('cycle-a').dependsOnTaskIds, [r.get('cycle-b').taskId]);
  assert.deepEqual(all.get('cycle-b').dependsOnTaskIds, []);
  assert.deepEqual([...all.keys()].sort(), ['cycle-a', 'cycle-b', 'late-dependency', 'shop-mysql', 'website-files']);

  // Structural problems refuse the whole file and create nothing.
  const refused = async (body: unknown, expect: RegExp | string) => {
    const res = await call(app, 'POST', '/api/backup/tasks/import', { token: admin, body });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json.code, 'BACKUP_TASK_IMPORT_INVALID', res.body);
    if (typeof expect === 'string')
      assert.ok(
        res.json.details?.some((d: { path: string }) => d.path === expect),
        res.body,
      );
    else assert.match(res.json.message, expect);
  };
  const fresh = await referenceExport();
  await refused({ ...fresh, version: 'v2' }, /Unsupported export version "v2"/);
  await refused({ version: 'v1' }, 'body');
  await refused({ ...fresh, version: undefined }, 'body');
  await refused([fresh], 'body');
  const wrongType = await referenceExport();
  wrongType.tasks[1].dbPort = '3306';
  await refused(wrongType, 'body/tasks/1/dbPort');
  const noName = await referenceExport();
  delete noName.tasks[0].name;
  await refused(noName, 'body/tasks/0');
  assert.equal(
    (
      await call(app, 'POST', '/api/backup/tasks/import', {
        token: admin,
        body: '{"version":',
        headers: { 'content-type': 'application/json' },
      })
    ).json.code,
    'INVALID_JSON',
  );
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'], '5');
});

test('the import body may be 1 MiB, not a byte more (413 PAYLOAD_TOO_LARGE)', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  const MiB = 1024 * 1024;
  const padded = (size: number) => {
    const shell = JSON.stringify({ version: 'v1', tasks: [], notice: '' });
    return shell.replace('"notice":""', `"notice":"${'x'.repeat(size - Buffer.byteLength(shell))}"`);
  };
  const send = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/api/backup/tasks/import',
      payload,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    });
  assert.equal(Buffer.byteLength(padded(MiB)), MiB);
  const atLimit = await send(padded(MiB));
  assert.equal(atLimit.statusCode, 200, atLimit.body);
  assert.deepEqual(atLimit.json().data, []);
  const over = await send(padded(MiB + 1));
  assert.equal(over.statusCode, 413);
  assert.equal(over.json().code, 'PAYLOAD_TOO_LARGE');
});

test('viewers may export but not import', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  await target(t, app, admin, 'nas-backup');
  await target(t, app, admin, 'offsite-s3');
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const operator = (await userWithRole(app, admin, 'operator')).token;
  const fixture = await referenceExport();

  assert.equal((await call(app, 'GET', '/api/backup/tasks/export', { token: viewer })).status, 200);
  const denied = await call(app, 'POST', '/api/backup/tasks/import', { token: viewer, body: fixture });
  assert.equal(denied.status, 403);
  assert.equal(denied.json.code, 'AUTH_FORBIDDEN');
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'], '0');
  assert.equal((await importFile(app, operator, fixture)).created, 3);
  assert.equal((await call(app, 'GET', '/api/backup/tasks/export')).status, 401);
});

test('import of tasks naming several databases: a list is kept; an empty or repeated name fails that task with BACKUP_TASK_INVALID on dbName', async (t) => {
  const { app, admin } = await appWithAdmin(t);
  await target(t, app, admin, 'nas-backup');
  await target(t, app, admin, 'offsite-s3');
  const fixture = await referenceExport();
  const shop = fixture.tasks.find((x: { name: string }) => x.name === 'shop-mysql');
  const db = { ...shop, dependsOnTaskNames: [], replicationTargetNames: [] };
  fixture.tasks = [
    { ...db, name: 'two-dbs', dbName: 'shop,crm' },
    { ...db, name: 'empty-name', dbName: 'shop,,crm' },
    { ...db, name: 'twice', dbName: 'shop, crm, shop' },
  ];
  const report = await importFile(app, admin, fixture);
  const r = new Map<string, any>(report.results.map((x: { name: string }) => [x.name, x]));
  assert.equal(r.get('two-dbs').success, true, JSON.stringify(r.get('two-dbs')));
  for (const name of ['empty-name', 'twice']) {
    assert.equal(r.get(name).success, false);
    assert.equal(r.get(name).code, 'BACKUP_TASK_INVALID');
    assert.match(r.get(name).error, /dbName/);
  }
  assert.match(r.get('twice').error, /"shop" twice/);
});
