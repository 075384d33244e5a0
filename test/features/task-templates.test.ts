import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, userWithRole, tempDir } from '../helpers/build.ts';
import { DB_PASSWORD_AAD } from '../../core/backup/task-spec.ts';
import { TEMPLATE_SECRETS_AAD } from '../../core/features/task-templates/task-template-service.ts';

const SECRET = 'tpl-secret-pw';

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

const pgPayload = (targetId: number, extra: Record<string, unknown> = {}) => ({
  type: 'pgsql',
  dbHost: 'db.internal',
  dbPort: 5432,
  dbUser: 'backup',
  dbName: 'app',
  dbPassword: SECRET,
  storageTargetIds: [targetId],
  cronExpr: '0 3 * * *',
  retentionDays: 7,
  tags: 'tpl',
  ...extra,
});
const filePayload = (targetId: number, extra: Record<string, unknown> = {}) => ({
  type: 'file',
  sourcePaths: ['/srv/base'],
  storageTargetIds: [targetId],
  ...extra,
});

/** The payload fields a test set, out of the full task input the detail shows. */
const fieldsOf = (payload: Record<string, unknown>, keys: string[]) =>
  Object.fromEntries(keys.map((k) => [k, payload[k]]));

async function createTemplate(app: FastifyInstance, token: string, body: unknown) {
  const res = await call(app, 'POST', '/api/task-templates', { token, body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

async function rawTemplate(app: FastifyInstance, id: number) {
  const rows = await app.diContainer.cradle.orm.em
    .fork()
    .getConnection()
    .execute<{ payload: string; secrets: string; created_by: string }[]>(
      'select payload, secrets, created_by from task_templates where id = ?',
      [id],
    );
  return rows[0]!;
}

async function auditOf(app: FastifyInstance, token: string, category: string) {
  const res = await call(app, 'GET', '/api/audit-logs', { token, query: { category, limit: '500' } });
  assert.equal(res.status, 200, res.body);
  return res.json.data.items as {
    action: string;
    targetType: string;
    targetId: string;
    targetName: string;
    detail: string;
  }[];
}

test('task template CRUD, uniqueness, 404 and audit', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const operator = (await userWithRole(app, admin, 'operator')).token;

  const created = await createTemplate(app, operator, {
    name: ' nightly-files ',
    description: 'file servers',
    payload: filePayload(targetId, { name: 'ignored', unknownField: 1 }),
  });
  assert.equal(created.name, 'nightly-files', 'the name is trimmed');
  assert.equal(created.description, 'file servers');
  assert.equal(created.taskType, 'file');
  assert.equal(created.createdBy, 'operator-user');
  assert.deepEqual(fieldsOf(created.payload, ['type', 'sourcePaths', 'storageTargetIds']), {
    type: 'file',
    sourcePaths: ['/srv/base'],
    storageTargetIds: [targetId],
  });
  assert.ok(!('name' in created.payload) && !('unknownField' in created.payload), 'name and unknown keys are dropped');
  // The detail shows the task input the template makes: absent fields as a task gets them.
  assert.deepEqual(
    fieldsOf(created.payload, ['sourcePath', 'storageTargetId', 'compression', 'retentionDays', 'tags', 'dbPassword']),
    {
      sourcePath: '/srv/base',
      storageTargetId: targetId,
      compression: 'zstd',
      retentionDays: 30,
      tags: '',
      dbPassword: '',
    },
  );
  assert.deepEqual(
    JSON.parse((await rawTemplate(app, created.id)).payload),
    { type: 'file', sourcePaths: ['/srv/base'], storageTargetIds: [targetId] },
    'only what was sent is stored',
  );
  assert.deepEqual(created.maskedFields, []);
  assert.ok(created.createdAt && created.updatedAt);

  const second = await createTemplate(app, admin, { name: 'databases', payload: pgPayload(targetId) });
  assert.equal(second.taskType, 'postgresql', 'aliases are stored canonical');
  assert.equal(second.payload.type, 'postgresql');
  assert.equal(second.description, '');

  const dup = await call(app, 'POST', '/api/task-templates', {
    token: admin,
    body: { name: 'nightly-files', payload: filePayload(targetId) },
  });
  assert.equal(dup.status, 409);
  assert.equal(dup.json.code, 'TASK_TEMPLATE_NAME_EXISTS');
  const renameClash = await call(app, 'PUT', `/api/task-templates/${second.id}`, {
    token: admin,
    body: { name: 'nightly-files' },
  });
  assert.equal(renameClash.status, 409);
  assert.equal(renameClash.json.code, 'TASK_TEMPLATE_NAME_EXISTS');

  // Shapes: the payload is a task input (schema errors are INVALID_INPUT); the type must be known.
  const invalid = [
    { body: { name: 'x', payload: { ...filePayload(targetId), retentionDays: 'ten' } }, code: 'INVALID_INPUT' },
    { body: { name: 'x', payload: { sourcePaths: ['/a'] } }, code: 'INVALID_INPUT' },
    { body: { name: 'x' }, code: 'INVALID_INPUT' },
    { body: { name: 'x'.repeat(129), payload: filePayload(targetId) }, code: 'INVALID_INPUT' },
    { body: { name: 'x', description: 'd'.repeat(501), payload: filePayload(targetId) }, code: 'INVALID_INPUT' },
    { body: { name: '   ', payload: filePayload(targetId) }, code: 'TASK_TEMPLATE_INVALID' },
    {
      body: { name: 'x', payload: { ...filePayload(targetId), type: 'oracle' } },
      code: 'BACKUP_TASK_TYPE_UNSUPPORTED',
    },
  ];
  for (const { body, code } of invalid) {
    const res = await call(app, 'POST', '/api/task-templates', { token: admin, body });
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body}`);
    assert.equal(res.json.code, code, res.body);
  }

  const list = await call(app, 'GET', '/api/task-templates', { token: admin });
  assert.equal(list.status, 200);
  assert.equal(list.headers['x-total-count'], '2');
  assert.deepEqual(
    list.json.data.map((x: { name: string }) => x.name),
    ['databases', 'nightly-files'],
  );
  assert.deepEqual(
    Object.keys(list.json.data[0]).sort(),
    ['createdAt', 'createdBy', 'description', 'id', 'name', 'taskType', 'updatedAt'],
    'no payload in the list',
  );
  const page = await call(app, 'GET', '/api/task-templates', { token: admin, query: { limit: '1', offset: '1' } });
  assert.deepEqual(
    page.json.data.map((x: { name: string }) => x.name),
    ['nightly-files'],
  );
  assert.equal(page.headers['x-total-count'], '2');

  const got = await call(app, 'GET', `/api/task-templates/${created.id}`, { token: admin });
  assert.equal(got.status, 200);
  assert.deepEqual(got.json.data.payload, created.payload);

  // Partial update: absent fields keep their values; a payload replaces the stored one.
  const renamed = await call(app, 'PUT', `/api/task-templates/${created.id}`, {
    token: admin,
    body: { name: 'files' },
  });
  assert.equal(renamed.status, 200, renamed.body);
  assert.equal(renamed.json.data.name, 'files');
  assert.equal(renamed.json.data.description, 'file servers');
  assert.deepEqual(renamed.json.data.payload, created.payload);
  const repayload = await call(app, 'PUT', `/api/task-templates/${created.id}`, {
    token: admin,
    body: { description: '', payload: filePayload(targetId, { sourcePaths: ['/srv/other'], compression: 'gzip' }) },
  });
  assert.equal(repayload.status, 200, repayload.body);
  assert.equal(repayload.json.data.description, '');
  assert.deepEqual(JSON.parse((await rawTemplate(app, created.id)).payload), {
    type: 'file',
    sourcePaths: ['/srv/other'],
    storageTargetIds: [targetId],
    compression: 'gzip',
  });
  assert.deepEqual(fieldsOf(repayload.json.data.payload, ['sourcePath', 'compression']), {
    sourcePath: '/srv/other',
    compression: 'gzip',
  });
  assert.equal(repayload.json.data.createdBy, 'operator-user', 'the creator is kept');

  const del = await call(app, 'DELETE', `/api/task-templates/${created.id}`, { token: admin });
  assert.equal(del.status, 200);
  assert.deepEqual(del.json.data, { deleted: true });
  for (const [method, url, body] of [
    ['GET', `/api/task-templates/${created.id}`, undefined],
    ['PUT', `/api/task-templates/${created.id}`, { description: 'x' }],
    ['DELETE', `/api/task-templates/${created.id}`, undefined],
    ['POST', `/api/task-templates/${created.id}/apply`, { variables: [{ name: 'a' }] }],
  ] as const) {
    const res = await call(app, method, url, { token: admin, body });
    assert.equal(res.status, 404, `${method} ${url}`);
    assert.equal(res.json.code, 'TASK_TEMPLATE_NOT_FOUND');
  }
  assert.equal((await call(app, 'GET', '/api/task-templates/abc', { token: admin })).json.code, 'INVALID_ID');

  const audit = await auditOf(app, admin, 'task_template');
  assert.deepEqual(audit.map((e) => e.action).sort(), ['create', 'create', 'delete', 'update', 'update']);
  assert.ok(audit.every((e) => e.targetType === 'task_template'));
  assert.ok(audit.some((e) => e.action === 'delete' && e.targetId === String(created.id) && e.targetName === 'files'));
});

test('the template password is sealed at rest, masked in responses and kept by the mask', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const { secretBox } = app.diContainer.cradle;
  const template = await createTemplate(app, admin, { name: 'pg', payload: pgPayload(targetId) });
  assert.equal(template.payload.dbPassword, '********');
  assert.deepEqual(template.maskedFields, ['dbPassword']);

  const row = await rawTemplate(app, template.id);
  assert.ok(!row.payload.includes(SECRET), 'the payload column holds the password');
  assert.equal(JSON.parse(row.payload).dbPassword, undefined);
  assert.ok(row.secrets !== '' && !row.secrets.includes(SECRET), 'the password is stored in clear');
  assert.deepEqual(JSON.parse(secretBox.open(row.secrets, TEMPLATE_SECRETS_AAD)), { dbPassword: SECRET });
  assert.equal(row.created_by, 'admin');

  const responses = [
    await call(app, 'GET', `/api/task-templates/${template.id}`, { token: admin }),
    await call(app, 'GET', '/api/task-templates', { token: admin }),
  ];
  for (const res of responses) assert.ok(!res.body.includes(SECRET), `the password leaked: ${res.body}`);
  assert.equal(responses[0]!.json.data.payload.dbPassword, '********');
  assert.deepEqual(responses[0]!.json.data.maskedFields, ['dbPassword']);

  // What a client read comes back unchanged: the mask (or '', or no password at all) keeps the stored one.
  const stored = async () =>
    JSON.parse(secretBox.open((await rawTemplate(app, template.id)).secrets, TEMPLATE_SECRETS_AAD)).dbPassword;
  for (const dbPassword of ['********', '', undefined]) {
    const payload = { ...responses[0]!.json.data.payload, dbName: `app-${dbPassword ?? 'absent'}`, dbPassword };
    const res = await call(app, 'PUT', `/api/task-templates/${template.id}`, { token: admin, body: { payload } });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.data.payload.dbPassword, '********');
    assert.equal(await stored(), SECRET);
  }
  const changed = await call(app, 'PUT', `/api/task-templates/${template.id}`, {
    token: admin,
    body: { payload: pgPayload(targetId, { dbPassword: 'new-pw' }) },
  });
  assert.equal(changed.status, 200, changed.body);
  assert.equal(await stored(), 'new-pw');
  const renamed = await call(app, 'PUT', `/api/task-templates/${template.id}`, {
    token: admin,
    body: { name: 'pg-2' },
  });
  assert.equal(renamed.json.data.payload.dbPassword, '********', 'an update without a payload keeps the password');
  assert.equal(await stored(), 'new-pw');

  // A file payload has no connection: the password is dropped.
  const toFile = await call(app, 'PUT', `/api/task-templates/${template.id}`, {
    token: admin,
    body: { payload: filePayload(targetId, { dbPassword: 'x' }) },
  });
  assert.equal(toFile.json.data.taskType, 'file');
  assert.deepEqual(toFile.json.data.maskedFields, []);
  assert.equal(toFile.json.data.payload.dbPassword, '');
  assert.equal((await rawTemplate(app, template.id)).secrets, '');

  const audit = await call(app, 'GET', '/api/audit-logs/export', { token: admin });
  assert.ok(!audit.body.includes(SECRET) && !audit.body.includes('new-pw'), 'audit entries carry a password');
});

test('apply creates one task per item with overrides and the template password, best effort', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const { secretBox, orm, scheduler } = app.diContainer.cradle;
  const template = await createTemplate(app, admin, { name: 'pg', payload: pgPayload(targetId) });
  const existing = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: { name: 'taken', type: 'file', sourcePaths: ['/x'], storageTargetIds: [targetId] },
  });
  assert.equal(existing.status, 200, existing.body);

  const res = await call(app, 'POST', `/api/task-templates/${template.id}/apply`, {
    token: admin,
    body: {
      variables: [
        { name: 'pg-a', dbName: 'alpha', tags: ['a', 'b'] },
        { name: 'taken' },
        { name: 'pg-b', dbHost: 'other.internal' },
        { name: 'pg-a', dbName: 'again' },
        { name: 'pg-c', nodeId: 42 },
        { name: 'pg-d', dbName: ' ' },
        { name: 'pg-e' },
      ],
    },
  });
  assert.equal(res.status, 200, res.body);
  const items = res.json.data as {
    index: number;
    name: string;
    success: boolean;
    taskId?: number;
    error?: string;
    code?: string;
  }[];
  assert.deepEqual(
    items.map((i) => [i.index, i.name, i.success, i.code]),
    [
      [0, 'pg-a', true, undefined],
      [1, 'taken', false, 'BACKUP_TASK_NAME_EXISTS'],
      [2, 'pg-b', true, undefined],
      [3, 'pg-a', false, 'BACKUP_TASK_NAME_EXISTS'],
      [4, 'pg-c', false, 'BACKUP_TASK_INVALID'],
      [5, 'pg-d', true, undefined],
      [6, 'pg-e', true, undefined],
    ],
  );
  // BackupX's item: taskId on success, error (and Backplane's code) on failure, nothing null.
  for (const item of items) {
    if (item.success) {
      assert.ok(Number.isInteger(item.taskId));
      assert.ok(!('error' in item));
    } else {
      assert.ok(!('taskId' in item));
      assert.ok(item.error);
    }
  }
  assert.match(items[4]!.error!, /nodeId/, 'the failing field is named');

  const detail = async (id: number) => (await call(app, 'GET', `/api/backup/tasks/${id}`, { token: admin })).json.data;
  const a = await detail(items[0]!.taskId!);
  assert.equal(a.type, 'postgresql');
  assert.equal(a.dbName, 'alpha', 'overridden');
  assert.equal(a.dbHost, 'db.internal', 'from the payload');
  assert.equal(a.dbPort, 5432);
  assert.equal(a.cronExpr, '0 3 * * *');
  assert.equal(a.retentionDays, 7);
  assert.equal(a.tags, 'a,b');
  assert.deepEqual(a.storageTargetIds, [targetId]);
  assert.deepEqual(a.maskedFields, ['dbPassword']);
  assert.equal(a.dbPassword, '********');
  const b = await detail(items[2]!.taskId!);
  assert.equal(b.dbHost, 'other.internal');
  assert.equal(b.dbName, 'app');
  assert.equal(b.tags, 'tpl');
  assert.equal((await detail(items[5]!.taskId!)).dbName, 'app', "a blank field keeps the template's, as in BackupX");

  // The template's password reaches each created task, sealed under the task's own key binding.
  for (const item of items.filter((i) => i.success)) {
    const rows = await orm.em
      .fork()
      .getConnection()
      .execute<{ db_password: string }[]>('select db_password from backup_tasks where id = ?', [item.taskId]);
    const sealed = rows[0]!.db_password;
    assert.ok(sealed !== '' && !sealed.includes(SECRET));
    assert.equal(secretBox.open(sealed, DB_PASSWORD_AAD), SECRET);
    assert.ok(scheduler.nextRun(item.taskId!) instanceof Date, 'the created task is scheduled');
  }
  assert.equal(
    (await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'],
    '5',
    'the refused items created nothing',
  );
  assert.ok(!res.body.includes(SECRET));

  const taskAudit = (await auditOf(app, admin, 'backup_task')).filter((e) => e.detail === 'from template pg');
  assert.deepEqual(taskAudit.map((e) => e.targetName).sort(), ['pg-a', 'pg-b', 'pg-d', 'pg-e']);
  assert.ok(taskAudit.every((e) => e.action === 'create' && e.targetType === 'backup_task'));
  const applied = (await auditOf(app, admin, 'task_template')).filter((e) => e.action === 'apply');
  assert.equal(applied.length, 1);
  assert.equal(applied[0]!.targetId, String(template.id));
  assert.match(applied[0]!.detail, /^4 of 7 created/);
});

test('apply overrides file paths in either form', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const template = await createTemplate(app, admin, {
    name: 'files',
    payload: filePayload(targetId, { sourcePaths: ['/srv/a', '/srv/b'] }),
  });
  const res = await call(app, 'POST', `/api/task-templates/${template.id}/apply`, {
    token: admin,
    body: {
      variables: [
        { name: 'keep' },
        { name: 'single', sourcePath: '/srv/single' },
        { name: 'list', sourcePaths: ['/srv/x', '/srv/y'] },
        { name: 'relative', sourcePath: 'not/absolute' },
      ],
    },
  });
  assert.equal(res.status, 200, res.body);
  assert.deepEqual(
    res.json.data.map((i: { success: boolean }) => i.success),
    [true, true, true, false],
  );
  const paths = async (i: number) =>
    (await call(app, 'GET', `/api/backup/tasks/${res.json.data[i].taskId}`, { token: admin })).json.data.sourcePaths;
  assert.deepEqual(await paths(0), ['/srv/a', '/srv/b']);
  assert.deepEqual(await paths(1), ['/srv/single'], 'sourcePath replaces the payload list');
  assert.deepEqual(await paths(2), ['/srv/x', '/srv/y']);
  const noPassword = await call(app, 'GET', `/api/backup/tasks/${res.json.data[0].taskId}`, { token: admin });
  assert.deepEqual(noPassword.json.data.maskedFields, [], 'no password when the template has none');
});

test('apply refuses bad variables as a whole', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const template = await createTemplate(app, admin, { name: 'files', payload: filePayload(targetId) });
  const url = `/api/task-templates/${template.id}/apply`;
  const bodies = [
    { variables: [] },
    { variables: Array.from({ length: 101 }, (_, i) => ({ name: `t${i}`, sourcePath: `/srv/${i}` })) },
    {},
    { variables: [{ name: 'ok' }, { sourcePath: '/srv/nameless' }] },
    { variables: [{ name: '  ' }] },
  ];
  for (const body of bodies) {
    const res = await call(app, 'POST', url, { token: admin, body });
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 60)}: ${res.body}`);
    assert.equal(res.json.code, 'TASK_TEMPLATE_INVALID');
  }
  const wrongType = await call(app, 'POST', url, { token: admin, body: { variables: [{ name: 'x', nodeId: 'one' }] } });
  assert.equal(wrongType.json.code, 'INVALID_INPUT');
  assert.equal(
    (await call(app, 'GET', '/api/backup/tasks', { token: admin })).headers['x-total-count'],
    '0',
    'nothing was created',
  );

  // 100 is the limit, not beyond it.
  const hundred = await call(app, 'POST', url, {
    token: admin,
    body: { variables: Array.from({ length: 100 }, (_, i) => ({ name: `t${i}` })) },
  });
  assert.equal(hundred.status, 200, hundred.body);
  assert.equal(hundred.json.data.filter((i: { success: boolean }) => i.success).length, 100);
});

test('viewers read templates, operators change and apply them', async (t) => {
  const { app, admin, targetId } = await setup(t);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const operator = (await userWithRole(app, admin, 'operator')).token;
  const template = await createTemplate(app, operator, { name: 'files', payload: filePayload(targetId) });
  assert.equal((await call(app, 'GET', '/api/task-templates', { token: viewer })).status, 200);
  assert.equal((await call(app, 'GET', `/api/task-templates/${template.id}`, { token: viewer })).status, 200);
  const refused = [
    await call(app, 'POST', '/api/task-templates', {
      token: viewer,
      body: { name: 'v', payload: filePayload(targetId) },
    }),
    await call(app, 'PUT', `/api/task-templates/${template.id}`, { token: viewer, body: { description: 'v' } }),
    await call(app, 'DELETE', `/api/task-templates/${template.id}`, { token: viewer }),
    await call(app, 'POST', `/api/task-templates/${template.id}/apply`, {
      token: viewer,
      body: { variables: [{ name: 'v' }] },
    }),
  ];
  for (const res of refused) {
    assert.equal(res.status, 403);
    assert.equal(res.json.code, 'AUTH_FORBIDDEN');
  }
  const applied = await call(app, 'POST', `/api/task-templates/${template.id}/apply`, {
    token: operator,
    body: { variables: [{ name: 'op' }] },
  });
  assert.equal(applied.json.data[0].success, true, applied.body);
  assert.equal(
    (await call(app, 'GET', `/api/task-templates/${template.id}`, { token: admin })).json.data.description,
    '',
    'the viewer changed nothing',
  );
});
