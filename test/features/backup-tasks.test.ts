import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, userWithRole, tempDir } from '../helpers/build.ts';
import type { TestContext } from 'node:test';
import { parseMaintenanceWindows, withinMaintenanceWindows } from '../../core/backup/maintenance-window.ts';

async function setup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const dir = await tempDir(t);
  const target = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'disk', type: 'local_disk', config: { basePath: dir } },
  });
  assert.equal(target.status, 200, target.body);
  return { app, admin, targetId: target.json.data.id as number };
}

const fileTask = (targetId: number, extra: Record<string, unknown> = {}) => ({
  name: 'files',
  type: 'file',
  sourcePaths: ['/srv/data'],
  storageTargetIds: [targetId],
  ...extra,
});

async function create(app: FastifyInstance, token: string, body: unknown) {
  const res = await call(app, 'POST', '/api/backup/tasks', { token, body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

test('backup task CRUD, defaults and audit', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const dir2 = await tempDir(t);
  const second = (
    await call(app, 'POST', '/api/storage-targets', {
      token: admin,
      body: { name: 'disk-2', type: 'local_disk', config: { basePath: dir2 } },
    })
  ).json.data.id;

  const task = await create(
    app,
    admin,
    fileTask(targetId, {
      cronExpr: '0 2 * * *',
      excludePatterns: ['*.tmp', ' ', '*.tmp'],
      storageTargetIds: [targetId, second, targetId],
    }),
  );
  assert.equal(task.type, 'file');
  assert.equal(task.enabled, true);
  assert.equal(task.compression, 'zstd');
  assert.equal(task.encrypt, true);
  assert.equal(task.maxBackups, 10);
  assert.equal(task.retentionDays, 30);
  assert.equal(task.lastStatus, 'idle');
  assert.equal(task.lastRunAt, null);
  assert.equal(task.nodeId, 0);
  assert.equal(task.sourcePath, '/srv/data');
  assert.deepEqual(task.excludePatterns, ['*.tmp']);
  assert.deepEqual(task.storageTargetIds, [targetId, second], 'ordered, repeats dropped');
  assert.deepEqual(task.storageTargetNames, ['disk', 'disk-2']);
  assert.equal(task.storageTargetId, targetId, 'the first target is the primary');
  assert.equal(task.storageTargetName, 'disk');
  assert.equal(task.dbPassword, '');
  assert.deepEqual(task.maskedFields, []);

  const dup = await call(app, 'POST', '/api/backup/tasks', { token: admin, body: fileTask(targetId) });
  assert.equal(dup.status, 409);
  assert.equal(dup.json.code, 'BACKUP_TASK_NAME_EXISTS');

  const got = await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin });
  assert.equal(got.status, 200);
  assert.deepEqual(got.json.data.storageTargetIds, [targetId, second]);

  // maxBackups 0 means unlimited: it is kept, never turned into 10.
  const updated = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: {
      name: 'files-2',
      maxBackups: 0,
      retentionDays: 0,
      storageTargetIds: [second],
      compression: 'gzip',
      keepDaily: 7,
    },
  });
  assert.equal(updated.status, 200, updated.body);
  assert.equal(updated.json.data.name, 'files-2');
  assert.equal(updated.json.data.maxBackups, 0);
  assert.equal(updated.json.data.retentionDays, 0);
  assert.equal(updated.json.data.keepDaily, 7);
  assert.equal(updated.json.data.compression, 'gzip');
  assert.deepEqual(updated.json.data.storageTargetIds, [second]);
  assert.deepEqual(updated.json.data.sourcePaths, ['/srv/data'], 'absent fields are kept');
  assert.equal(updated.json.data.cronExpr, '0 2 * * *');

  const del = await call(app, 'DELETE', `/api/backup/tasks/${task.id}`, { token: admin });
  assert.deepEqual(del.json.data, { deleted: true });
  const gone = await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin });
  assert.equal(gone.status, 404);
  assert.equal(gone.json.code, 'BACKUP_TASK_NOT_FOUND');
  assert.equal(
    (await call(app, 'PUT', `/api/backup/tasks/${task.id}`, { token: admin, body: { enabled: false } })).json.code,
    'BACKUP_TASK_NOT_FOUND',
  );
  assert.equal((await call(app, 'GET', '/api/backup/tasks/abc', { token: admin })).json.code, 'INVALID_ID');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  assert.deepEqual(audit.json.data.items.map((e: { action: string }) => e.action).sort(), [
    'create',
    'delete',
    'update',
  ]);
  assert.ok(audit.json.data.items.every((e: { targetType: string }) => e.targetType === 'backup_task'));
});

test('invalid tasks are 400 BACKUP_TASK_INVALID with the failing fields', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const invalid = async (
    body: Record<string, unknown>,
    path: string,
    url = '/api/backup/tasks',
    method: 'POST' | 'PUT' = 'POST',
  ) => {
    const res = await call(app, method, url, { token: admin, body });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(res.json.code, 'BACKUP_TASK_INVALID', res.body);
    assert.ok(
      res.json.details.some((d: { path: string }) => d.path === path),
      `expected ${path} in ${res.body}`,
    );
  };
  await invalid(fileTask(targetId, { cronExpr: '61 * * * *' }), 'cronExpr');
  await invalid(fileTask(targetId, { cronExpr: 'every day' }), 'cronExpr');
  // BackupX's `@every <Go duration>`: a malformed or sub-second duration is refused the same way.
  for (const bad of [
    '@every',
    '@every 1x',
    '@every 1h 30m',
    '@every -1h',
    '@every 500ms',
    '@every h',
    '@every 3000000h',
  ]) {
    await invalid(fileTask(targetId, { cronExpr: bad }), 'cronExpr');
  }
  await invalid(fileTask(targetId, { verifyEnabled: true, verifyCronExpr: '@every soon' }), 'verifyCronExpr');
  await invalid(fileTask(targetId, { sourcePaths: [] }), 'sourcePaths');
  await invalid(fileTask(targetId, { sourcePaths: ['relative/dir'] }), 'sourcePaths/0');
  await invalid(fileTask(targetId, { storageTargetIds: [targetId, 9999] }), 'storageTargetIds/1');
  await invalid(fileTask(targetId, { storageTargetIds: [] }), 'storageTargetIds');
  // A type no plugin serves has its own code, naming the type and the ones this master serves.
  for (const type of ['oracle', 'mongodb', 'saphana']) {
    const res = await call(app, 'POST', '/api/backup/tasks', { token: admin, body: fileTask(targetId, { type }) });
    assert.deepEqual([res.status, res.json.code], [400, 'BACKUP_TASK_TYPE_UNSUPPORTED'], res.body);
    assert.deepEqual(res.json.details, {
      type,
      supportedTypes: ['file', ...app.diContainer.cradle.databaseDrivers.list().map((d: { type: string }) => d.type)],
    });
    assert.match(res.json.message, new RegExp(`"${type}".*not supported.*Supported types: file, `));
  }
  await invalid(fileTask(targetId, { retentionDays: -1 }), 'retentionDays');
  await invalid(fileTask(targetId, { maxBackups: -5 }), 'maxBackups');
  await invalid(fileTask(targetId, { alertOnConsecutiveFails: 0 }), 'alertOnConsecutiveFails');
  await invalid(fileTask(targetId, { compression: 'lz4' }), 'compression');
  await invalid(fileTask(targetId, { verifyEnabled: true }), 'verifyCronExpr');
  await invalid(fileTask(targetId, { verifyEnabled: true, verifyCronExpr: 'nope' }), 'verifyCronExpr');
  await invalid(fileTask(targetId, { verifyMode: 'full' }), 'verifyMode');
  await invalid(fileTask(targetId, { maintenanceWindows: 'days=mon,time=25:00-02:00' }), 'maintenanceWindows');
  await invalid(fileTask(targetId, { maintenanceWindows: 'days=funday,time=01:00-02:00' }), 'maintenanceWindows');
  await invalid(fileTask(targetId, { nodeId: 42 }), 'nodeId');
  await invalid(fileTask(targetId, { dependsOnTaskIds: [12345] }), 'dependsOnTaskIds/0');
  await invalid({ name: 'pg', type: 'postgresql', storageTargetIds: [targetId], dbName: 'app' }, 'dbHost');
  await invalid({ name: 'pg', type: 'postgresql', storageTargetIds: [targetId], dbHost: 'db', dbUser: 'u' }, 'dbName');
  await invalid({ name: 'lite', type: 'sqlite', storageTargetIds: [targetId] }, 'dbPath');
  // Several databases: one dump each, named after the database.
  const pgTask = { name: 'pg', type: 'postgresql', storageTargetIds: [targetId], dbHost: 'db', dbUser: 'u' };
  await invalid({ ...pgTask, dbName: 'a,,b' }, 'dbName');
  await invalid({ ...pgTask, dbName: 'a,b,' }, 'dbName');
  await invalid({ ...pgTask, dbName: 'a, b, a' }, 'dbName');
  await invalid({ ...pgTask, dbName: 'a,x/y' }, 'dbName');
  await invalid(
    { name: 'my', type: 'mysql', storageTargetIds: [targetId], dbHost: 'db', dbUser: 'u', dbName: 'shop,shop' },
    'dbName',
  );

  // Several failures are reported together; schema errors stay INVALID_INPUT.
  const many = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: fileTask(targetId, { cronExpr: 'x', retentionDays: -1, sourcePaths: [] }),
  });
  assert.equal(many.json.details.length, 3, many.body);
  const wrongType = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: fileTask(targetId, { retentionDays: 'ten' }),
  });
  assert.equal(wrongType.json.code, 'INVALID_INPUT');
  const noName = await call(app, 'POST', '/api/backup/tasks', { token: admin, body: { type: 'file' } });
  assert.equal(noName.json.code, 'INVALID_INPUT');

  // Valid forms: descriptors, six fields, windows crossing midnight, sqlite with a path.
  await create(
    app,
    admin,
    fileTask(targetId, {
      name: 'a',
      cronExpr: '@daily',
      verifyEnabled: true,
      verifyCronExpr: '0 0 3 * * 0',
      maintenanceWindows: 'days=mon|Tuesday|6,time=22:00-02:00; time=12:00-13:00',
    }),
  );
  await create(app, admin, { name: 'lite', type: 'sqlite', dbPath: '/var/lib/app.db', storageTargetIds: [targetId] });
  const before = Date.now();
  const every = await create(
    app,
    admin,
    fileTask(targetId, { name: 'every', cronExpr: '@every 1h30m', verifyEnabled: true, verifyCronExpr: '@every 24h' }),
  );
  assert.deepEqual([every.cronExpr, every.verifyCronExpr], ['@every 1h30m', '@every 24h'], 'stored as written');
  const next = app.diContainer.cradle.scheduler.nextRun(every.id)?.getTime();
  const grid = 90 * 60_000;
  const onGrid = (at: number) => (Math.floor(at / grid) + 1) * grid;
  assert.ok(next === onGrid(before) || next === onGrid(Date.now()), `scheduled on the @every grid: ${next}`);
  await call(app, 'DELETE', `/api/backup/tasks/${every.id}`, { token: admin });
  const multi = await create(app, admin, { ...pgTask, name: 'pg-multi', dbName: 'a, b' });
  await invalid({ dbName: 'a,a' }, 'dbName', `/api/backup/tasks/${multi.id}`, 'PUT');
  assert.equal(
    (await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'],
    '3',
    'invalid inputs created nothing',
  );
});

test('dependencies: existing tasks only, no self-dependency, no cycles', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const a = await create(app, admin, fileTask(targetId, { name: 'a' }));
  const b = await create(app, admin, fileTask(targetId, { name: 'b', dependsOnTaskIds: [a.id] }));
  const c = await create(app, admin, fileTask(targetId, { name: 'c', dependsOnTaskIds: [b.id] }));
  assert.deepEqual(c.dependsOnTaskIds, [b.id]);

  const self = await call(app, 'PUT', `/api/backup/tasks/${a.id}`, {
    token: admin,
    body: { dependsOnTaskIds: [a.id] },
  });
  assert.equal(self.status, 400);
  assert.equal(self.json.details[0].path, 'dependsOnTaskIds/0');
  const cycle = await call(app, 'PUT', `/api/backup/tasks/${a.id}`, {
    token: admin,
    body: { dependsOnTaskIds: [c.id] },
  });
  assert.equal(cycle.status, 400);
  assert.equal(cycle.json.code, 'BACKUP_TASK_INVALID');
  assert.match(cycle.json.details[0].message, /cycle/);
  const direct = await call(app, 'PUT', `/api/backup/tasks/${a.id}`, {
    token: admin,
    body: { dependsOnTaskIds: [b.id] },
  });
  assert.equal(direct.status, 400);
  // A diamond is not a cycle.
  const diamond = await call(app, 'PUT', `/api/backup/tasks/${c.id}`, {
    token: admin,
    body: { dependsOnTaskIds: [b.id, a.id] },
  });
  assert.equal(diamond.status, 200, diamond.body);

  // Deleting a task removes it from the dependencies of others.
  await call(app, 'DELETE', `/api/backup/tasks/${b.id}`, { token: admin });
  const after = await call(app, 'GET', `/api/backup/tasks/${c.id}`, { token: admin });
  assert.deepEqual(after.json.data.dependsOnTaskIds, [a.id]);
});

test('database tasks: pgsql alias, sealed password masked everywhere, mask round-trip keeps it', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const body = {
    name: 'pg',
    type: 'pgsql',
    dbHost: 'db.internal',
    dbPort: 5432,
    dbUser: 'backup',
    dbName: 'app',
    dbPassword: 'pg-secret-pw',
    storageTargetIds: [targetId],
  };
  const task = await create(app, admin, body);
  assert.equal(task.type, 'postgresql', 'pgsql is stored as postgresql');
  assert.equal(task.dbPassword, '********');
  assert.deepEqual(task.maskedFields, ['dbPassword']);
  const id = task.id;

  const responses = [
    await call(app, 'GET', `/api/backup/tasks/${id}`, { token: admin }),
    await call(app, 'GET', '/api/backup/tasks', { token: admin }),
    await call(app, 'PUT', `/api/backup/tasks/${id}/toggle`, { token: admin }),
  ];
  for (const res of responses) assert.ok(!res.body.includes('pg-secret-pw'), `the password leaked: ${res.body}`);
  assert.equal(responses[1]!.json.data[0].dbPassword, undefined, 'summaries carry no connection fields');

  const { orm, secretBox } = app.diContainer.cradle;
  const rawRow = async () =>
    (
      await orm.em
        .fork()
        .getConnection()
        .execute<{ db_password: string }[]>('select db_password from backup_tasks where id = ?', [id])
    )[0]!.db_password;
  const sealed = await rawRow();
  assert.ok(sealed !== '' && !sealed.includes('pg-secret-pw'), 'the password is stored in clear');
  assert.equal(secretBox.open(sealed, 'backup_tasks.db_password'), 'pg-secret-pw');

  // The mask or an empty value keeps the stored password.
  for (const dbPassword of ['********', '']) {
    const res = await call(app, 'PUT', `/api/backup/tasks/${id}`, {
      token: admin,
      body: { ...body, dbPassword, dbName: 'app2' },
    });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.data.dbPassword, '********');
    assert.equal(secretBox.open(await rawRow(), 'backup_tasks.db_password'), 'pg-secret-pw');
  }
  await call(app, 'PUT', `/api/backup/tasks/${id}`, { token: admin, body: { dbPassword: 'new-pw' } });
  assert.equal(secretBox.open(await rawRow(), 'backup_tasks.db_password'), 'new-pw');

  // Filtering by the alias finds the canonical type; audit entries never carry the password.
  const byAlias = await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { type: 'pgsql' } });
  assert.equal(byAlias.json.data.length, 1);
  const audit = await call(app, 'GET', '/api/audit-logs/export', { token: admin });
  assert.ok(!audit.body.includes('pg-secret-pw') && !audit.body.includes('new-pw'));
});

test('tags, list filters and paging', async (t) => {
  const { app, admin, targetId } = await setup(t);
  await create(app, admin, fileTask(targetId, { name: 't1', tags: ' prod, db ,prod,,' }));
  await create(app, admin, fileTask(targetId, { name: 't2', tags: ['prod', 'web'], enabled: false }));
  await create(app, admin, fileTask(targetId, { name: 't3', tags: 'prod_x' }));
  await create(app, admin, {
    name: 't4',
    type: 'mysql',
    dbHost: 'h',
    dbPort: 3306,
    dbUser: 'u',
    dbName: 'd',
    storageTargetIds: [targetId],
    tags: 'db',
  });

  const t1 = await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { limit: '1' } });
  assert.equal(t1.json.data[0].tags, 'prod,db', 'stored normalised');
  assert.equal(t1.headers['x-total-count'], '4');
  assert.equal(t1.json.data.length, 1);
  const page2 = await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { limit: '2', offset: '2' } });
  assert.deepEqual(
    page2.json.data.map((x: { name: string }) => x.name),
    ['t3', 't4'],
  );

  const tags = await call(app, 'GET', '/api/backup/tasks/tags', { token: admin });
  assert.deepEqual(tags.json.data, ['db', 'prod', 'prod_x', 'web']);

  const names = (res: { json: { data: { name: string }[] } }) => res.json.data.map((x) => x.name);
  const prod = await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { tag: 'prod' } });
  assert.deepEqual(names(prod), ['t1', 't2'], 'exact tag match');
  assert.equal(prod.headers['x-total-count'], '2');
  const prodPaged = await call(app, 'GET', '/api/backup/tasks', {
    token: admin,
    query: { tag: 'prod', limit: '1', offset: '1' },
  });
  assert.deepEqual(names(prodPaged), ['t2']);
  assert.equal(prodPaged.headers['x-total-count'], '2');
  assert.deepEqual(names(await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { type: 'mysql' } })), [
    't4',
  ]);
  assert.deepEqual(names(await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { enabled: 'false' } })), [
    't2',
  ]);
  assert.deepEqual(
    names(await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { enabled: 'true', tag: 'db' } })),
    ['t1', 't4'],
  );
});

test('toggle and batch operations report per item', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const a = await create(app, admin, fileTask(targetId, { name: 'a' }));
  const b = await create(app, admin, fileTask(targetId, { name: 'b' }));

  const flipped = await call(app, 'PUT', `/api/backup/tasks/${a.id}/toggle`, { token: admin });
  assert.equal(flipped.json.data.enabled, false);
  const flippedBack = await call(app, 'PUT', `/api/backup/tasks/${a.id}/toggle`, { token: admin });
  assert.equal(flippedBack.json.data.enabled, true);
  const set = await call(app, 'PUT', `/api/backup/tasks/${a.id}/toggle`, { token: admin, body: { enabled: true } });
  assert.equal(set.json.data.enabled, true, 'an explicit state is set, not flipped');

  const batch = await call(app, 'POST', '/api/backup/tasks/batch/toggle', {
    token: admin,
    body: { ids: [a.id, b.id, 999], enabled: false },
  });
  assert.equal(batch.status, 200, batch.body);
  // BackupX's item: name when found, error (and Backplane's code) only on failure.
  assert.deepEqual(batch.json.data, [
    { id: a.id, name: 'a', success: true },
    { id: b.id, name: 'b', success: true },
    { id: 999, success: false, error: 'Backup task not found.', code: 'BACKUP_TASK_NOT_FOUND' },
  ]);
  const list = await call(app, 'GET', '/api/backup/tasks', { token: admin, query: { enabled: 'false' } });
  assert.equal(list.json.data.length, 2);

  for (const body of [
    { ids: [], enabled: true },
    { ids: [0], enabled: true },
    { ids: Array.from({ length: 101 }, (_, i) => i + 1), enabled: true },
  ]) {
    const bad = await call(app, 'POST', '/api/backup/tasks/batch/toggle', { token: admin, body });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, 'BACKUP_TASK_BATCH_INVALID');
  }
  assert.equal(
    (await call(app, 'POST', '/api/backup/tasks/batch/delete', { token: admin, body: { ids: [] } })).json.code,
    'BACKUP_TASK_BATCH_INVALID',
  );

  const deleted = await call(app, 'POST', '/api/backup/tasks/batch/delete', {
    token: admin,
    body: { ids: [b.id, 999, b.id] },
  });
  assert.deepEqual(deleted.json.data, [
    { id: b.id, name: 'b', success: true },
    { id: 999, success: false, error: 'Backup task not found.', code: 'BACKUP_TASK_NOT_FOUND' },
  ]);
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'], '1');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  const actions = audit.json.data.items.map((e: { action: string }) => e.action);
  assert.equal(actions.filter((x: string) => x === 'toggle').length, 5);
  assert.equal(actions.filter((x: string) => x === 'delete').length, 1);
});

test('viewers read tasks, operators change them', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const operator = (await userWithRole(app, admin, 'operator')).token;
  const task = await create(app, operator, fileTask(targetId));
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: viewer })).status, 200);
  assert.equal((await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: viewer })).status, 200);
  assert.equal(
    (await call(app, 'POST', '/api/backup/tasks', { token: viewer, body: fileTask(targetId, { name: 'v' }) })).status,
    403,
  );
  assert.equal((await call(app, 'PUT', `/api/backup/tasks/${task.id}/toggle`, { token: viewer })).status, 403);
});

test('a storage target used by a task cannot be deleted', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const task = await create(app, admin, fileTask(targetId));
  const inUse = await call(app, 'DELETE', `/api/storage-targets/${targetId}`, { token: admin });
  assert.equal(inUse.status, 409);
  assert.equal(inUse.json.code, 'STORAGE_TARGET_IN_USE');
  await call(app, 'DELETE', `/api/backup/tasks/${task.id}`, { token: admin });
  const freed = await call(app, 'DELETE', `/api/storage-targets/${targetId}`, { token: admin });
  assert.equal(freed.status, 200, freed.body);
});

test('maintenance windows: syntax and evaluation', () => {
  const windows = parseMaintenanceWindows('days=mon|Friday|0,time=22:00-02:00; time=12:00-13:00');
  assert.deepEqual(windows, [
    { days: [0, 1, 5], start: 22 * 60, end: 2 * 60 },
    { days: [0, 1, 2, 3, 4, 5, 6], start: 12 * 60, end: 13 * 60 },
  ]);
  const at = (day: number, hh: number, mm = 0) => new Date(2026, 0, 4 + day, hh, mm); // 2026-01-04 is a Sunday
  assert.equal(withinMaintenanceWindows(windows, at(1, 23)), true, 'Monday 23:00');
  assert.equal(withinMaintenanceWindows(windows, at(2, 1, 59)), true, 'Tuesday 01:59 is Monday night');
  assert.equal(withinMaintenanceWindows(windows, at(2, 2)), false, 'the end is exclusive');
  assert.equal(withinMaintenanceWindows(windows, at(2, 23)), false, 'not on Tuesdays');
  assert.equal(withinMaintenanceWindows(windows, at(3, 12, 30)), true, 'the daily window');
  assert.equal(withinMaintenanceWindows([], at(3, 3)), true, 'no windows: always');
  for (const bad of [
    'time=10:00',
    'days=mon',
    'days=mon,time=1-2',
    'time=10:00-10:00',
    'time=10:00-11:00,time=12:00-13:00',
    'days=7,time=10:00-11:00',
    'foo=bar,time=10:00-11:00',
  ]) {
    assert.throws(() => parseMaintenanceWindows(bad), Error, bad);
  }
});
