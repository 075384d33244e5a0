import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, runAndWait } from '../backup/helpers.ts';
import { expectEnvelope, expectShape, Ref } from './reference-shape.ts';
import {
  BatchResult,
  ExportPayload,
  ExportedTask,
  ImportResult,
  RunRecord,
  TaskDetail,
  TaskSummary,
  VerifyRecord,
} from './backup-task-shapes.ts';

/** BackupX's own export (test/fixtures), as its v1 writer leaves it. */
const referenceExport = async () =>
  JSON.parse(await readFile(new URL('../fixtures/backupx-export-v1.json', import.meta.url), 'utf8'));

async function setup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const disk = await diskTarget(t, app, admin);
  return { app, admin, disk };
}

/**
 * What BackupX's console sends when a file task is created through its 3-step drawer with the
 * defaults (web/src/components/backup-tasks/BackupTaskFormDrawer.tsx: createEmptyDraft, then
 * handleSubmit; `extraConfig: undefined` is not in the JSON).
 */
function consoleCreateDraft(targetId: number, sourcePath: string, patch: Record<string, unknown> = {}) {
  return {
    name: 'www',
    type: 'file',
    enabled: true,
    cronExpr: '',
    sourcePath,
    sourcePaths: [sourcePath],
    excludePatterns: [],
    dbHost: '',
    dbPort: 0,
    dbUser: '',
    dbPassword: '',
    dbName: '',
    dbPath: '',
    storageTargetId: targetId,
    storageTargetIds: [targetId],
    nodeId: 0,
    nodePoolTag: '',
    tags: '',
    retentionDays: 30,
    compression: 'gzip',
    encrypt: false,
    maxBackups: 10,
    keepDaily: 0,
    keepWeekly: 0,
    keepMonthly: 0,
    keepYearly: 0,
    backupMode: 'full',
    diffFullIntervalDays: 7,
    verifyEnabled: false,
    verifyCronExpr: '',
    verifyMode: 'quick',
    slaHoursRpo: 0,
    alertOnConsecutiveFails: 1,
    replicationTargetIds: [],
    maintenanceWindows: '',
    dependsOnTaskIds: [],
    ...patch,
  };
}

/** The console's edit draft: built field by field from the detail (BackupTaskFormDrawer's useEffect), password blank. */
function consoleEditDraft(d: any, patch: Record<string, unknown> = {}) {
  const ids = d.storageTargetIds?.length > 0 ? d.storageTargetIds : d.storageTargetId > 0 ? [d.storageTargetId] : [];
  const paths = d.sourcePaths?.length > 0 ? d.sourcePaths : d.sourcePath ? [d.sourcePath] : [''];
  const draft: Record<string, unknown> = {
    name: d.name,
    type: d.type,
    enabled: d.enabled,
    cronExpr: d.cronExpr,
    sourcePath: d.sourcePath,
    sourcePaths: paths,
    excludePatterns: d.excludePatterns,
    dbHost: d.dbHost,
    dbPort: d.dbPort,
    dbUser: d.dbUser,
    dbPassword: '',
    dbName: d.dbName,
    dbPath: d.dbPath,
    storageTargetId: ids[0] ?? 0,
    storageTargetIds: ids,
    nodeId: d.nodeId ?? 0,
    nodePoolTag: d.nodePoolTag ?? '',
    tags: d.tags ?? '',
    retentionDays: d.retentionDays,
    compression: d.compression,
    encrypt: d.encrypt,
    maxBackups: d.maxBackups,
    keepDaily: d.keepDaily ?? 0,
    keepWeekly: d.keepWeekly ?? 0,
    keepMonthly: d.keepMonthly ?? 0,
    keepYearly: d.keepYearly ?? 0,
    backupMode: d.backupMode ?? 'full',
    diffFullIntervalDays: d.diffFullIntervalDays ?? 7,
    extraConfig: d.extraConfig,
    verifyEnabled: d.verifyEnabled ?? false,
    verifyCronExpr: d.verifyCronExpr ?? '',
    verifyMode: d.verifyMode ?? 'quick',
    slaHoursRpo: d.slaHoursRpo ?? 0,
    alertOnConsecutiveFails: d.alertOnConsecutiveFails ?? 1,
    replicationTargetIds: d.replicationTargetIds ?? [],
    maintenanceWindows: d.maintenanceWindows ?? '',
    dependsOnTaskIds: d.dependsOnTaskIds ?? [],
    ...patch,
  };
  return JSON.parse(JSON.stringify(draft)); // undefined fields (extraConfig) are not sent, as with axios
}

async function createTask(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  return expectEnvelope(await call(app, 'POST', '/api/backup/tasks', { token, body }), TaskDetail, 'create');
}

/** A source folder with a file in it, for tasks that really run. */
async function sourceDir(t: TestContext) {
  const dir = join(await tempDir(t), 'src');
  await mkdir(dir);
  await writeFile(join(dir, 'index.html'), 'hello');
  return dir;
}

test("POST /api/backup/tasks: the console's default create draft is accepted and honoured; the answer is BackupTaskDetail", async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(
    app,
    admin,
    consoleCreateDraft(disk.id, '/srv/www', { cronExpr: '0 2 * * *', tags: 'prod,web', retentionDays: 14 }),
  );
  assert.deepEqual(
    [
      task.name,
      task.type,
      task.sourcePaths,
      task.storageTargetIds,
      task.compression,
      task.encrypt,
      task.cronExpr,
      task.tags,
      task.retentionDays,
    ],
    ['www', 'file', ['/srv/www'], [disk.id], 'gzip', false, '0 2 * * *', 'prod,web', 14],
  );
  assert.deepEqual([task.backupMode, task.diffFullIntervalDays, task.nodePoolTag, task.nodeId], ['full', 7, '', 0]);
  assert.ok(!('extraConfig' in task), 'no extraConfig is stored, and BackupX leaves an empty one out');
});

test("PUT /api/backup/tasks/:id: the console's edit draft round-trips; the answer is BackupTaskDetail", async (t) => {
  const { app, admin, disk } = await setup(t);
  const created = await createTask(
    app,
    admin,
    consoleCreateDraft(disk.id, '/srv/www', { nodePoolTag: 'web', diffFullIntervalDays: 14 }),
  );
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/backup/tasks/${created.id}`, { token: admin }),
    TaskDetail,
  );

  // Saved unchanged: nothing moves.
  const same = expectEnvelope(
    await call(app, 'PUT', `/api/backup/tasks/${created.id}`, { token: admin, body: consoleEditDraft(detail) }),
    TaskDetail,
    'update',
  );
  const { updatedAt: _a, ...before } = detail;
  const { updatedAt: _b, ...after } = same;
  assert.deepEqual(after, before);

  // Edited: the changes land, the pool can be cleared under BackupX's name.
  const edited = expectEnvelope(
    await call(app, 'PUT', `/api/backup/tasks/${created.id}`, {
      token: admin,
      body: consoleEditDraft(detail, {
        nodePoolTag: '',
        cronExpr: '30 1 * * *',
        maxBackups: 3,
        sourcePaths: ['/srv/www', '/etc/nginx'],
        sourcePath: '/srv/www',
      }),
    }),
    TaskDetail,
    'update',
  );
  assert.deepEqual(
    [edited.nodePoolTag, edited.nodeLabel, edited.cronExpr, edited.maxBackups, edited.sourcePaths],
    ['', '', '30 1 * * *', 3, ['/srv/www', '/etc/nginx']],
  );
});

test("Go zero values BackupX's API takes: storageTargetId 0 is none, null lists are empty, the single forms stand in for an empty list", async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, {
    ...consoleCreateDraft(disk.id, '/srv/x'),
    sourcePaths: null,
    storageTargetId: 0,
    excludePatterns: null,
    dependsOnTaskIds: null,
    replicationTargetIds: null,
  });
  assert.deepEqual(
    [task.sourcePaths, task.storageTargetIds, task.excludePatterns, task.dependsOnTaskIds, task.replicationTargetIds],
    [['/srv/x'], [disk.id], [], [], []],
  );
  const other = await diskTarget(t, app, admin, 'other');
  const moved = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { sourcePaths: [], sourcePath: '/srv/y', storageTargetIds: [], storageTargetId: other.id },
  });
  assert.deepEqual(
    [moved.json.data.sourcePaths, moved.json.data.storageTargetIds],
    [['/srv/y'], [other.id]],
    moved.body,
  );
});

test('GET /api/backup/tasks: a plain array of BackupTaskSummary, total in X-Total-Count', async (t) => {
  const { app, admin, disk } = await setup(t);
  await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { name: 'a', nodePoolTag: 'pool-1' }));
  await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/b', { name: 'b' }));
  const res = await call(app, 'GET', '/api/backup/tasks', { token: admin });
  const list = expectEnvelope(res, Type.Array(TaskSummary), 'list');
  assert.deepEqual(
    list.map((x: { name: string; nodePoolTag: string }) => [x.name, x.nodePoolTag]),
    [
      ['a', 'pool-1'],
      ['b', ''],
    ],
  );
  assert.equal(res.headers['x-total-count'], '2');

  // The console asks once, without paging: every task comes back, not a first page.
  const many = Array.from({ length: 120 }, (_, i) => ({
    name: `bulk-${String(i).padStart(3, '0')}`,
    type: 'file',
    sourcePath: `/srv/${i}`,
    storageTargetNames: ['disk'],
  }));
  await call(app, 'POST', '/api/backup/tasks/import', { token: admin, body: { version: 'v1', tasks: many } });
  const all = await call(app, 'GET', '/api/backup/tasks', { token: admin });
  assert.equal(all.json.data.length, 122);
  assert.equal(all.headers['x-total-count'], '122');
});

test('GET /api/backup/tasks/:id: BackupTaskDetail; a stored password shows only in maskedFields', async (t) => {
  const { app, admin, disk } = await setup(t);
  const created = await createTask(app, admin, {
    ...consoleCreateDraft(disk.id, ''),
    name: 'db',
    type: 'postgresql',
    sourcePath: '',
    sourcePaths: [],
    dbHost: 'db.internal',
    dbPort: 5432,
    dbUser: 'backup',
    dbPassword: 'pg-secret',
    dbName: 'app',
  });
  const res = await call(app, 'GET', `/api/backup/tasks/${created.id}`, { token: admin });
  const detail = expectEnvelope(res, TaskDetail, 'detail');
  assert.deepEqual(detail.maskedFields, ['dbPassword']);
  assert.ok(!res.body.includes('pg-secret'));
});

test('GET /api/backup/tasks/tags: an array of strings', async (t) => {
  const { app, admin, disk } = await setup(t);
  await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { name: 'a', tags: 'web, prod' }));
  await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/b', { name: 'b', tags: 'db,prod' }));
  assert.deepEqual(
    expectEnvelope(await call(app, 'GET', '/api/backup/tasks/tags', { token: admin }), Type.Array(Type.String())),
    ['db', 'prod', 'web'],
  );
});

test("nodePoolTag is nodeLabel under BackupX's name, both ways; different values for the two are refused", async (t) => {
  const { app, admin, disk } = await setup(t);
  const byReferenceName = await createTask(
    app,
    admin,
    consoleCreateDraft(disk.id, '/srv/a', { name: 'a', nodePoolTag: 'edge' }),
  );
  assert.deepEqual(
    [byReferenceName.nodePoolTag, byReferenceName.nodeLabel, byReferenceName.nodeId],
    ['edge', 'edge', 0],
  );
  const byOwnName = await createTask(app, admin, {
    name: 'b',
    type: 'file',
    sourcePaths: ['/srv/b'],
    storageTargetIds: [disk.id],
    nodeLabel: 'core',
  });
  assert.equal(byOwnName.nodePoolTag, 'core');
  const agreeing = await createTask(
    app,
    admin,
    consoleCreateDraft(disk.id, '/srv/c', { name: 'c', nodePoolTag: 'edge', nodeLabel: 'edge' }),
  );
  assert.equal(agreeing.nodeLabel, 'edge');

  const conflict = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: consoleCreateDraft(disk.id, '/srv/d', { name: 'd', nodePoolTag: 'edge', nodeLabel: 'core' }),
  });
  assert.equal(conflict.status, 400, conflict.body);
  assert.equal(conflict.json.code, 'BACKUP_TASK_INVALID');
  assert.equal(conflict.json.details[0].path, 'nodePoolTag');
  const moved = await call(app, 'PUT', `/api/backup/tasks/${byReferenceName.id}`, {
    token: admin,
    body: { nodePoolTag: 'core' },
  });
  assert.equal(moved.json.data.nodeLabel, 'core', "a partial update under BackupX's name moves the pool");
});

test('backupMode: full, differential and repository are accepted (database tasks run full); anything else is invalid', async (t) => {
  const { app, admin, disk } = await setup(t);
  for (const [backupMode, code] of [['incremental', 'BACKUP_TASK_INVALID']]) {
    const res = await call(app, 'POST', '/api/backup/tasks', {
      token: admin,
      body: consoleCreateDraft(disk.id, '/srv/a', { backupMode }),
    });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json.code, code);
    assert.match(JSON.stringify(res.json), new RegExp(backupMode!), 'the refusal names the mode');
  }
  assert.equal(
    (await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'],
    '0',
    'nothing was created',
  );

  // '' is BackupX's default (full); any case of full is full.
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { backupMode: '' }));
  assert.equal(task.backupMode, 'full');
  assert.equal(
    (await call(app, 'PUT', `/api/backup/tasks/${task.id}`, { token: admin, body: { backupMode: 'FULL' } })).status,
    200,
  );
  const diff = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { backupMode: 'Differential', diffFullIntervalDays: 3 },
  });
  assert.equal(diff.status, 200, diff.body);
  assert.deepEqual([diff.json.data.backupMode, diff.json.data.diffFullIntervalDays], ['differential', 3]);
  const repository = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { backupMode: 'REPOSITORY' },
  });
  assert.equal(repository.json.data.backupMode, 'repository');
  const refused = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { backupMode: 'incremental', diffFullIntervalDays: 5 },
  });
  assert.equal(refused.json.code, 'BACKUP_TASK_INVALID');
  assert.equal(
    (await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin })).json.data.diffFullIntervalDays,
    3,
    'a refused update changes nothing',
  );

  // A database task takes the mode and runs full: BackupX forces non-file types to full.
  const db = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: {
      name: 'pg',
      type: 'postgresql',
      dbHost: '127.0.0.1',
      dbPort: 5432,
      dbUser: 'postgres',
      dbName: 'test',
      storageTargetIds: [disk.id],
      backupMode: 'differential',
    },
  });
  assert.equal(db.status, 200, db.body);
  assert.equal(db.json.data.backupMode, 'full');
});

test('diffFullIntervalDays is stored and returned (0 is BackupX\'s "default", 7); a negative value is refused', async (t) => {
  const { app, admin, disk } = await setup(t);
  // The console keeps the interval a user typed before switching back to full: it must save.
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { diffFullIntervalDays: 14 }));
  assert.equal(task.diffFullIntervalDays, 14);
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).json.data[0].diffFullIntervalDays, 14);
  const zero = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { diffFullIntervalDays: 0 },
  });
  assert.equal(zero.json.data.diffFullIntervalDays, 7);
  const negative = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, {
    token: admin,
    body: { diffFullIntervalDays: -1 },
  });
  assert.equal(negative.json.code, 'BACKUP_TASK_INVALID');
  assert.equal(negative.json.details[0].path, 'diffFullIntervalDays');
});

test('extraConfig: empty or null is accepted; any key is refused with a code naming it', async (t) => {
  const { app, admin, disk } = await setup(t);
  const empty = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { name: 'a', extraConfig: {} }));
  const nulled = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/b', { name: 'b', extraConfig: null }));
  assert.ok(!('extraConfig' in empty) && !('extraConfig' in nulled));

  // The console's SAP HANA defaults (field-config.ts: defaultSapHanaExtraConfig).
  const hana = { backupType: 'data', backupLevel: 'full', backupChannels: 1, maxRetries: 3, instanceNumber: '' };
  const res = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: consoleCreateDraft(disk.id, '/srv/c', { name: 'c', extraConfig: hana }),
  });
  assert.equal(res.status, 400, res.body);
  assert.equal(res.json.code, 'BACKUP_TASK_EXTRA_CONFIG_UNSUPPORTED');
  for (const key of Object.keys(hana)) assert.match(res.json.message, new RegExp(`"${key}"`));
  const update = await call(app, 'PUT', `/api/backup/tasks/${empty.id}`, {
    token: admin,
    body: { extraConfig: { backupLevel: 'incremental' } },
  });
  assert.equal(update.json.code, 'BACKUP_TASK_EXTRA_CONFIG_UNSUPPORTED');
  assert.match(update.json.message, /"backupLevel"/);
  const wrongType = await call(app, 'PUT', `/api/backup/tasks/${empty.id}`, {
    token: admin,
    body: { extraConfig: 'level=full' },
  });
  assert.equal(wrongType.json.code, 'INVALID_INPUT');
});

test("PUT /api/backup/tasks/:id/toggle: the console's {enabled} sets the state; the answer is BackupTaskSummary", async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a'));
  const off = expectEnvelope(
    await call(app, 'PUT', `/api/backup/tasks/${task.id}/toggle`, { token: admin, body: { enabled: false } }),
    TaskSummary,
    'toggle',
  );
  assert.equal(off.enabled, false);
  const stillOff = expectEnvelope(
    await call(app, 'PUT', `/api/backup/tasks/${task.id}/toggle`, { token: admin, body: { enabled: false } }),
    TaskSummary,
    'toggle',
  );
  assert.equal(stillOff.enabled, false, 'an explicit state is set, not flipped');
});

test('DELETE /api/backup/tasks/:id: {deleted: true}', async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a'));
  assert.deepEqual(
    expectEnvelope(
      await call(app, 'DELETE', `/api/backup/tasks/${task.id}`, { token: admin }),
      Ref({ deleted: Type.Boolean() }),
    ),
    { deleted: true },
  );
  assert.equal(
    (await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin })).json.code,
    'BACKUP_TASK_NOT_FOUND',
  );
});

test('POST /api/backup/tasks/batch/toggle and batch/delete: BatchResult[] per id, failures reported in their item', async (t) => {
  const { app, admin, disk } = await setup(t);
  const a = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/a', { name: 'a' }));
  const b = await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/b', { name: 'b' }));
  const toggled = expectEnvelope(
    await call(app, 'POST', '/api/backup/tasks/batch/toggle', {
      token: admin,
      body: { ids: [a.id, b.id, 999], enabled: false },
    }),
    Type.Array(BatchResult),
  );
  assert.deepEqual(
    toggled.map((r: { id: number; success: boolean }) => [r.id, r.success]),
    [
      [a.id, true],
      [b.id, true],
      [999, false],
    ],
  );
  assert.equal(toggled[0].name, 'a');
  assert.ok(toggled[2].error);
  assert.deepEqual(
    (await call(app, 'GET', '/api/backup/tasks', { token: admin })).json.data.map(
      (x: { enabled: boolean }) => x.enabled,
    ),
    [false, false],
  );

  const deleted = expectEnvelope(
    await call(app, 'POST', '/api/backup/tasks/batch/delete', { token: admin, body: { ids: [a.id, 999] } }),
    Type.Array(BatchResult),
  );
  assert.deepEqual(
    deleted.map((r: { id: number; success: boolean }) => [r.id, r.success]),
    [
      [a.id, true],
      [999, false],
    ],
  );
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'], '1');
});

test('POST /api/backup/tasks/:id/run: the record detail the console opens (its id), as GET /api/backup/records/:id gives it', async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, await sourceDir(t)));
  const record = expectEnvelope(
    await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin }),
    RunRecord,
    'run',
  );
  assert.equal(record.taskId, task.id);
  assert.equal(record.recordId, record.id, "Backplane's own field stays");
  await app.diContainer.cradle.backupRuns.idle();
  const got = expectEnvelope(
    await call(app, 'GET', `/api/backup/records/${record.id}`, { token: admin }),
    RunRecord,
    'record',
  );
  const { recordId: _, ...runKeys } = record;
  assert.deepEqual(Object.keys(runKeys).sort(), Object.keys(got).sort(), 'the same shape as the record detail');
  assert.equal(got.status, 'success');
});

test('POST /api/backup/tasks/batch/run: BatchResult[], each started run naming its record', async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, await sourceDir(t)));
  const results = expectEnvelope(
    await call(app, 'POST', '/api/backup/tasks/batch/run', { token: admin, body: { ids: [task.id, 424242] } }),
    Type.Array(BatchResult),
  );
  assert.deepEqual(
    results.map((r: { id: number; success: boolean }) => [r.id, r.success]),
    [
      [task.id, true],
      [424242, false],
    ],
  );
  assert.ok(Number.isInteger(results[0].recordId));
  assert.ok(results[1].error && !('recordId' in results[1]));
  await app.diContainer.cradle.backupRuns.idle();
});

test("POST /api/backup/tasks/:id/verify: the console's {mode} starts a verification; the answer is the verification record detail", async (t) => {
  const { app, admin, disk } = await setup(t);
  const task = await createTask(app, admin, consoleCreateDraft(disk.id, await sourceDir(t)));
  const backup = await runAndWait(app, admin, task.id);
  const verify = expectEnvelope(
    await call(app, 'POST', `/api/backup/tasks/${task.id}/verify`, { token: admin, body: { mode: 'deep' } }),
    VerifyRecord,
    'verify',
  );
  assert.deepEqual([verify.taskId, verify.backupRecordId, verify.mode], [task.id, backup.id, 'deep']);
  await app.diContainer.cradle.verifications.idle();
  const got = (await call(app, 'GET', `/api/verify/records/${verify.id}`, { token: admin })).json.data;
  assert.deepEqual(
    Object.keys(verify).sort(),
    Object.keys(got).sort(),
    'the same shape as the verification record detail',
  );
});

test("GET /api/backup/tasks/export: a file BackupX's import decodes (its ExportPayload types); ids selects", async (t) => {
  const { app, admin, disk } = await setup(t);
  const a = await createTask(
    app,
    admin,
    consoleCreateDraft(disk.id, '/srv/a', { name: 'a', tags: 'x,y', cronExpr: '0 1 * * *' }),
  );
  await createTask(app, admin, consoleCreateDraft(disk.id, '/srv/b', { name: 'b', dependsOnTaskIds: [a.id] }));
  const res = await call(app, 'GET', '/api/backup/tasks/export', { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.match(
    String(res.headers['content-disposition']),
    /filename="[^"]+\.json"/,
    'the console takes the file name from here',
  );
  expectShape(res.json, ExportPayload, 'export');
  assert.deepEqual(
    res.json.tasks.map((x: { name: string; dependsOnTaskNames: string[] }) => [x.name, x.dependsOnTaskNames]),
    [
      ['a', []],
      ['b', ['a']],
    ],
  );
  const one = await call(app, 'GET', '/api/backup/tasks/export', { token: admin, query: { ids: String(a.id) } });
  expectShape(one.json, ExportPayload, 'export?ids');
  assert.deepEqual([one.json.taskCount, one.json.tasks[0].name, one.json.tasks[0].tags], [1, 'a', 'x,y']);
});

test("POST /api/backup/tasks/import: BackupX's array of results; skips and failures reported as BackupX reports them", async (t) => {
  const { app, admin } = await setup(t);
  await diskTarget(t, app, admin, 'nas-backup');
  await diskTarget(t, app, admin, 'offsite-s3');
  const file = await referenceExport();
  file.tasks.push({
    name: 'hana',
    type: 'file',
    sourcePath: '/srv/h',
    storageTargetNames: ['nas-backup'],
    extraConfig: { backupLevel: 'full' },
  });
  const results = expectEnvelope(
    await call(app, 'POST', '/api/backup/tasks/import', { token: admin, body: file }),
    Type.Array(ImportResult),
    'import',
  );
  assert.deepEqual(
    results.map((r: { name: string; success: boolean }) => [r.name, r.success]),
    [
      ['website-files', true],
      ['shop-mysql', true],
      ['billing-postgres', true],
      ['hana', false],
    ],
  );
  assert.ok(
    results.slice(0, 3).every((r: { taskId: number; skipped: boolean }) => Number.isInteger(r.taskId) && !r.skipped),
  );
  assert.match(results[1].error, /password/, 'the console shows what is left to do in its note column');
  assert.equal(results[3].code, 'BACKUP_TASK_EXTRA_CONFIG_UNSUPPORTED');
  assert.match(results[3].error, /"backupLevel"/);
  assert.ok(!('taskId' in results[3]));

  const again = expectEnvelope(
    await call(app, 'POST', '/api/backup/tasks/import', { token: admin, body: await referenceExport() }),
    Type.Array(ImportResult),
    'import again',
  );
  // As BackupX: a skipped entry is a success with skipped and a note; the console counts it apart.
  assert.ok(
    again.every(
      (r: { success: boolean; skipped: boolean; error: string }) => r.success && r.skipped && /exists/.test(r.error),
    ),
  );
  assert.equal(again.filter((r: { success: boolean; skipped: boolean }) => r.success && !r.skipped).length, 0);
});

test('BackupX -> Backplane -> BackupX: its export imported and exported again gives BackupX the values it wrote', async (t) => {
  const { app, admin } = await setup(t);
  await diskTarget(t, app, admin, 'nas-backup');
  await diskTarget(t, app, admin, 'offsite-s3');
  const original = await referenceExport();
  await call(app, 'POST', '/api/backup/tasks/import', { token: admin, body: original });
  const exported = await call(app, 'GET', '/api/backup/tasks/export', { token: admin });
  expectShape(exported.json, ExportPayload, 'export');

  // BackupX reads a missing field as Go's zero value; its local node and our '' both mean the master.
  const fields = Object.keys(ExportedTask.properties);
  const zero = (v: unknown) =>
    v === undefined || v === null || v === '' || v === 0 || v === false || (Array.isArray(v) && v.length === 0)
      ? undefined
      : v;
  const asBackupXReads = (task: Record<string, unknown>) =>
    Object.fromEntries(
      fields.map((f) => [f, f === 'nodeName' && task[f] === '本机 (Local)' ? undefined : zero(task[f])]),
    );
  const byName = new Map(exported.json.tasks.map((x: { name: string }) => [x.name, x]));
  assert.equal(byName.size, original.tasks.length);
  for (const task of original.tasks)
    assert.deepEqual(asBackupXReads(byName.get(task.name) as Record<string, unknown>), asBackupXReads(task), task.name);

  // And that file imported into another Backplane gives the same tasks.
  const other = await setup(t);
  await diskTarget(t, other.app, other.admin, 'nas-backup');
  await diskTarget(t, other.app, other.admin, 'offsite-s3');
  const results = (
    await call(other.app, 'POST', '/api/backup/tasks/import', { token: other.admin, body: exported.json })
  ).json.data;
  assert.ok(
    results.every((r: { success: boolean; skipped: boolean }) => r.success && !r.skipped),
    JSON.stringify(results),
  );
  const again = await call(other.app, 'GET', '/api/backup/tasks/export', { token: other.admin });
  assert.deepEqual(again.json.tasks, exported.json.tasks);
});

test('POST /api/backup/tasks: MongoDB and SAP HANA, as the console sends them, are refused with a message it shows', async (t) => {
  const { app, admin, disk } = await setup(t);
  const db = {
    sourcePath: '',
    sourcePaths: [],
    dbHost: '10.0.0.5',
    dbPort: 27017,
    dbUser: 'backup',
    dbPassword: 'pw',
    dbName: 'app',
  };
  // The console's SAP HANA draft carries its extra settings (field-config.ts defaultSapHanaExtraConfig).
  const hana = {
    ...db,
    dbPort: 30015,
    extraConfig: { backupType: 'data', backupLevel: 'full', backupChannels: 1, maxRetries: 3, instanceNumber: '00' },
  };
  for (const [type, patch, name] of [
    ['mongodb', db, 'MongoDB'],
    ['saphana', hana, 'SAP HANA'],
  ] as const) {
    const res = await call(app, 'POST', '/api/backup/tasks', {
      token: admin,
      body: consoleCreateDraft(disk.id, '', { name: type, type, ...patch }),
    });
    assert.deepEqual([res.status, res.json.code], [400, 'BACKUP_TASK_TYPE_UNSUPPORTED'], res.body);
    // The console shows `message` (web/src/utils/error.ts resolveErrorMessage): it names the type and what works.
    assert.match(
      res.json.message,
      new RegExp(`^Task type "${type}" \\(${name}\\) is not supported.*Supported types: file, .*postgresql`),
    );
    assert.ok(res.json.details.supportedTypes.includes('mysql'));
  }
});
