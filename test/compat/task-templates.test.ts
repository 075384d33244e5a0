import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { diskTarget } from '../backup/helpers.ts';
import { expectEnvelope, Ref } from './reference-shape.ts';
import { ApplyResult, TemplateDetail, TemplateSummary } from './backup-task-shapes.ts';

async function setup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const disk = await diskTarget(t, app, admin);
  return { app, admin, disk };
}

/**
 * A BackupX script's template body (server/internal/service/task_template_service.go:
 * TaskTemplateUpsertInput): a name, a description and a whole BackupTaskUpsertInput, name included,
 * every field written (no omitempty there), with Go's zero values where nothing was chosen
 * (`storageTargetId: 0`, nil lists as null, `extraConfig: null`).
 */
function referenceTemplate(targetId: number, patch: Record<string, unknown> = {}) {
  return {
    name: 'mysql-fleet',
    description: 'every shop database',
    payload: {
      name: 'template-task',
      type: 'mysql',
      enabled: true,
      cronExpr: '0 3 * * *',
      sourcePath: '',
      sourcePaths: null,
      excludePatterns: null,
      dbHost: 'db-1.internal',
      dbPort: 3306,
      dbUser: 'backup',
      dbPassword: 'tpl-secret',
      dbName: 'shop',
      dbPath: '',
      storageTargetId: 0,
      storageTargetIds: [targetId],
      nodeId: 0,
      nodePoolTag: '',
      tags: 'shop',
      retentionDays: 14,
      compression: 'gzip',
      encrypt: false,
      maxBackups: 5,
      extraConfig: null,
      verifyEnabled: false,
      verifyCronExpr: '',
      verifyMode: 'quick',
      slaHoursRpo: 0,
      alertOnConsecutiveFails: 1,
      keepDaily: 0,
      keepWeekly: 0,
      keepMonthly: 0,
      keepYearly: 0,
      backupMode: '',
      diffFullIntervalDays: 0,
      replicationTargetIds: null,
      maintenanceWindows: '',
      dependsOnTaskIds: null,
      ...patch,
    },
  };
}

test('POST /api/task-templates: a BackupX template body is accepted; the answer is TaskTemplateDetail', async (t) => {
  const { app, admin, disk } = await setup(t);
  const res = await call(app, 'POST', '/api/task-templates', { token: admin, body: referenceTemplate(disk.id) });
  const detail = expectEnvelope(res, TemplateDetail, 'create');
  assert.deepEqual(
    [detail.name, detail.description, detail.taskType, detail.createdBy],
    ['mysql-fleet', 'every shop database', 'mysql', 'admin'],
  );
  assert.deepEqual(
    [
      detail.payload.dbHost,
      detail.payload.dbName,
      detail.payload.tags,
      detail.payload.retentionDays,
      detail.payload.compression,
    ],
    ['db-1.internal', 'shop', 'shop', 14, 'gzip'],
  );
  assert.equal(detail.payload.dbPassword, '********');
  assert.ok(!res.body.includes('tpl-secret'));
});

test('GET /api/task-templates: a plain array of TaskTemplateSummary', async (t) => {
  const { app, admin, disk } = await setup(t);
  await call(app, 'POST', '/api/task-templates', {
    token: admin,
    body: { name: 'files', payload: { type: 'file', sourcePaths: ['/srv'], storageTargetIds: [disk.id] } },
  });
  const res = await call(app, 'GET', '/api/task-templates', { token: admin });
  const list = expectEnvelope(res, Type.Array(TemplateSummary), 'list');
  assert.deepEqual(
    list.map((x: { name: string; taskType: string }) => [x.name, x.taskType]),
    [['files', 'file']],
  );
  assert.equal(res.headers['x-total-count'], '1');

  // The console asks once, without paging: every template comes back.
  for (let i = 0; i < 110; i++)
    await call(app, 'POST', '/api/task-templates', {
      token: admin,
      body: { name: `t-${i}`, payload: { type: 'file' } },
    });
  assert.equal((await call(app, 'GET', '/api/task-templates', { token: admin })).json.data.length, 111);
});

test('GET /api/task-templates/:id: the payload is a whole task input, what the console pre-fills apply rows from', async (t) => {
  const { app, admin, disk } = await setup(t);
  // Stored sparse (Backplane's own clients send only what they set)...
  const created = (
    await call(app, 'POST', '/api/task-templates', {
      token: admin,
      body: {
        name: 'files',
        payload: { type: 'file', sourcePaths: ['/srv/www', '/etc'], storageTargetIds: [disk.id], nodeLabel: 'web' },
      },
    })
  ).json.data;
  // ...read back whole, as BackupX's templates are.
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/task-templates/${created.id}`, { token: admin }),
    TemplateDetail,
    'detail',
  );
  assert.deepEqual(
    [
      detail.payload.sourcePath,
      detail.payload.sourcePaths,
      detail.payload.storageTargetId,
      detail.payload.nodePoolTag,
      detail.payload.tags,
      detail.payload.dbHost,
      detail.payload.backupMode,
      detail.payload.dbPassword,
    ],
    ['/srv/www', ['/srv/www', '/etc'], disk.id, 'web', '', '', 'full', ''],
  );
});

test("PUT /api/task-templates/:id: BackupX's full body replaces the template; the answer is TaskTemplateDetail", async (t) => {
  const { app, admin, disk } = await setup(t);
  const created = (await call(app, 'POST', '/api/task-templates', { token: admin, body: referenceTemplate(disk.id) }))
    .json.data;
  const body = referenceTemplate(disk.id, { dbHost: 'db-2.internal', dbPassword: '********', compression: 'zstd' });
  const updated = expectEnvelope(
    await call(app, 'PUT', `/api/task-templates/${created.id}`, {
      token: admin,
      body: { ...body, name: 'mysql-fleet-2', description: 'changed' },
    }),
    TemplateDetail,
    'update',
  );
  assert.deepEqual(
    [
      updated.name,
      updated.description,
      updated.payload.dbHost,
      updated.payload.compression,
      updated.payload.dbPassword,
    ],
    ['mysql-fleet-2', 'changed', 'db-2.internal', 'zstd', '********'],
  );

  // A template's payload takes the task options the same way: a differential mode is kept, an unknown one refused.
  const diff = await call(app, 'PUT', `/api/task-templates/${created.id}`, {
    token: admin,
    body: referenceTemplate(disk.id, { type: 'file', sourcePath: '/srv', backupMode: 'differential' }),
  });
  assert.equal(diff.status, 200, diff.body);
  assert.equal(diff.json.data.payload.backupMode, 'differential');
  const repo = await call(app, 'PUT', `/api/task-templates/${created.id}`, {
    token: admin,
    body: referenceTemplate(disk.id, { type: 'file', sourcePath: '/srv', backupMode: 'mirror' }),
  });
  assert.equal(repo.status, 400, repo.body);
  assert.equal(repo.json.code, 'BACKUP_TASK_INVALID');
});

test('DELETE /api/task-templates/:id: {deleted: true}', async (t) => {
  const { app, admin, disk } = await setup(t);
  const created = (await call(app, 'POST', '/api/task-templates', { token: admin, body: referenceTemplate(disk.id) }))
    .json.data;
  assert.deepEqual(
    expectEnvelope(
      await call(app, 'DELETE', `/api/task-templates/${created.id}`, { token: admin }),
      Ref({ deleted: Type.Boolean() }),
    ),
    { deleted: true },
  );
  assert.equal(
    (await call(app, 'GET', `/api/task-templates/${created.id}`, { token: admin })).json.code,
    'TASK_TEMPLATE_NOT_FOUND',
  );
});

test("POST /api/task-templates/:id/apply: the console's variables create tasks; the answer is TaskTemplateApplyResult[]", async (t) => {
  const { app, admin, disk } = await setup(t);
  const created = (await call(app, 'POST', '/api/task-templates', { token: admin, body: referenceTemplate(disk.id) }))
    .json.data;
  // TaskTemplatesPage.handleApply: blank cells are sent as undefined (left out), nodeId as typed.
  const variables = [
    { name: 'shop-eu', dbHost: 'db-eu.internal', tags: 'eu' },
    { name: 'shop-us', dbName: 'shop_us' },
    { name: 'shop-eu', dbHost: 'again.internal' },
  ];
  const results = expectEnvelope(
    await call(app, 'POST', `/api/task-templates/${created.id}/apply`, { token: admin, body: { variables } }),
    Type.Array(ApplyResult),
    'apply',
  );
  assert.deepEqual(
    results.map((r: { name: string; success: boolean }) => [r.name, r.success]),
    [
      ['shop-eu', true],
      ['shop-us', true],
      ['shop-eu', false],
    ],
  );
  assert.ok(results[2].error && !('taskId' in results[2]));
  const task = async (id: number) => (await call(app, 'GET', `/api/backup/tasks/${id}`, { token: admin })).json.data;
  const eu = await task(results[0].taskId);
  assert.deepEqual(
    [eu.dbHost, eu.dbName, eu.tags, eu.retentionDays, eu.maskedFields],
    ['db-eu.internal', 'shop', 'eu', 14, ['dbPassword']],
  );
  const us = await task(results[1].taskId);
  assert.deepEqual([us.dbHost, us.dbName, us.tags], ['db-1.internal', 'shop_us', 'shop']);

  // A script may send every field; as in BackupX, a blank or null one keeps the template's value.
  const blanks = expectEnvelope(
    await call(app, 'POST', `/api/task-templates/${created.id}/apply`, {
      token: admin,
      body: {
        variables: [
          { name: 'shop-blank', sourcePath: '', sourcePaths: null, dbHost: '', dbName: '', tags: '', nodeId: null },
        ],
      },
    }),
    Type.Array(ApplyResult),
    'apply',
  );
  assert.equal(blanks[0].success, true, JSON.stringify(blanks));
  const blank = await task(blanks[0].taskId);
  assert.deepEqual([blank.dbHost, blank.dbName, blank.tags], ['db-1.internal', 'shop', 'shop']);
});
