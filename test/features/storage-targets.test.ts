import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, userWithRole, tempDir } from '../helpers/build.ts';
import { StorageTargetEntity } from '../../core/db/entities/storage-target.ts';
import type { AppEvent } from '../../core/events/event-bus.ts';

const local = (basePath: string, name = 'disk') => ({ name, type: 'local_disk', config: { basePath } });

test('storage target CRUD with local_disk', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const dir = await tempDir(t);

  const created = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { ...local(dir), description: 'primary' },
  });
  assert.equal(created.status, 200, created.body);
  const target = created.json.data;
  assert.equal(target.type, 'local_disk');
  assert.equal(target.config.basePath, dir);
  assert.deepEqual(target.maskedFields, []);
  assert.equal(target.enabled, true);
  assert.equal(target.lastTestStatus, 'unknown');

  const list = await call(app, 'GET', '/api/storage-targets', { token: admin });
  assert.equal(list.headers['x-total-count'], '1');
  assert.equal(list.json.data[0].name, 'disk');
  assert.equal(list.json.data[0].config, undefined, 'summaries carry no config');

  const dup = await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(dir) });
  assert.equal(dup.status, 409);
  assert.equal(dup.json.code, 'STORAGE_TARGET_NAME_EXISTS');

  const renamed = await call(app, 'PUT', `/api/storage-targets/${target.id}`, {
    token: admin,
    body: { name: 'disk-2', enabled: false },
  });
  assert.equal(renamed.status, 200);
  assert.equal(renamed.json.data.name, 'disk-2');
  assert.equal(renamed.json.data.enabled, false);
  assert.equal(renamed.json.data.config.basePath, dir, 'an update without config keeps it');

  const retype = await call(app, 'PUT', `/api/storage-targets/${target.id}`, {
    token: admin,
    body: { type: 'webdav' },
  });
  assert.equal(retype.status, 400);
  assert.equal(retype.json.code, 'STORAGE_TARGET_TYPE_IMMUTABLE');

  const star = await call(app, 'PUT', `/api/storage-targets/${target.id}/star`, { token: admin });
  assert.equal(star.json.data.starred, true);
  const unstar = await call(app, 'PUT', `/api/storage-targets/${target.id}/star`, { token: admin });
  assert.equal(unstar.json.data.starred, false);

  const del = await call(app, 'DELETE', `/api/storage-targets/${target.id}`, { token: admin });
  assert.deepEqual(del.json.data, { deleted: true });
  const gone = await call(app, 'GET', `/api/storage-targets/${target.id}`, { token: admin });
  assert.equal(gone.status, 404);
  assert.equal(gone.json.code, 'STORAGE_TARGET_NOT_FOUND');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'storage_target' } });
  assert.deepEqual(audit.json.data.items.map((e: { action: string }) => e.action).sort(), [
    'create',
    'delete',
    'update',
  ]);
});

test('bad storage input is a coded 4xx, never a 5xx', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const unknown = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'x', type: 'no-such-type', config: {} },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'STORAGE_PROVIDER_UNSUPPORTED');
  const missing = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'x', type: 'local_disk', config: {} },
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'STORAGE_TARGET_INVALID_CONFIG');
  assert.ok(missing.json.details.some((d: { path: string }) => d.path === 'config/basePath'));
  const wrongType = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'x', type: 'local_disk', config: { basePath: 42 } },
  });
  assert.equal(wrongType.status, 400);
  const noName = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { type: 'local_disk', config: { basePath: '/tmp' } },
  });
  assert.equal(noName.json.code, 'INVALID_INPUT');
  const badId = await call(app, 'GET', '/api/storage-targets/abc', { token: admin });
  assert.equal(badId.json.code, 'INVALID_ID');
});

test('unsaved and saved connection tests report the backend reason and record the outcome', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const dir = await tempDir(t);
  const file = join(dir, 'a-file');
  await writeFile(file, 'not a directory');

  const good = await call(app, 'POST', '/api/storage-targets/test', { token: admin, body: local(dir) });
  assert.equal(good.status, 200, good.body);
  assert.equal(good.json.data.success, true);
  const bad = await call(app, 'POST', '/api/storage-targets/test', { token: admin, body: local(join(file, 'sub')) });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'STORAGE_TARGET_TEST_FAILED');
  assert.ok(bad.json.message.length > 0);

  const saved = (await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(join(file, 'sub')) })).json
    .data;
  const failed = await call(app, 'POST', `/api/storage-targets/${saved.id}/test`, { token: admin });
  assert.equal(failed.status, 400);
  const after = (await call(app, 'GET', `/api/storage-targets/${saved.id}`, { token: admin })).json.data;
  assert.equal(after.lastTestStatus, 'failed');
  assert.ok(after.lastTestedAt);
  assert.ok(after.lastTestMessage.length > 0);

  await call(app, 'PUT', `/api/storage-targets/${saved.id}`, { token: admin, body: { config: { basePath: dir } } });
  const passed = await call(app, 'POST', `/api/storage-targets/${saved.id}/test`, { token: admin });
  assert.equal(passed.status, 200);
  assert.equal(
    (await call(app, 'GET', `/api/storage-targets/${saved.id}`, { token: admin })).json.data.lastTestStatus,
    'success',
  );

  const usage = await call(app, 'GET', `/api/storage-targets/${saved.id}/usage`, { token: admin });
  assert.equal(usage.status, 200);
  assert.equal(usage.json.data.targetName, saved.name);
  assert.ok(usage.json.data.diskUsage.total > 0, 'local disks report capacity');
  assert.ok(usage.json.data.diskUsage.free > 0);
});

test('viewers read targets, operators change them', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const operator = (await userWithRole(app, admin, 'operator')).token;
  const dir = await tempDir(t);
  const made = await call(app, 'POST', '/api/storage-targets', { token: operator, body: local(dir) });
  assert.equal(made.status, 200);
  assert.equal((await call(app, 'GET', `/api/storage-targets/${made.json.data.id}`, { token: viewer })).status, 200);
  assert.equal((await call(app, 'DELETE', `/api/storage-targets/${made.json.data.id}`, { token: viewer })).status, 403);
});

test('the health monitor records status and emits one event per transition', async (t) => {
  const { app } = await build(t, { config: { storageHealthIntervalSeconds: 0 } });
  const admin = await setupAdmin(app);
  const dir = await tempDir(t);
  const file = join(dir, 'plain-file');
  await writeFile(file, 'x');
  const events: AppEvent[] = [];
  const unsubscribe = app.diContainer.cradle.events.subscribe((e) => events.push(e));
  t.after(unsubscribe);

  const good = (await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(dir, 'good') })).json.data;
  const bad = (await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(join(file, 'sub'), 'bad') }))
    .json.data;

  const first = await app.diContainer.cradle.storageHealth.runOnce();
  assert.deepEqual(
    first.map((x) => [x.name, x.to]),
    [['bad', 'unhealthy']],
  );
  assert.deepEqual(
    events.map((e) => e.type),
    ['storage_unhealthy'],
  );
  assert.equal(events[0]!.fields.storageTargetId, bad.id);
  assert.equal(
    (await call(app, 'GET', `/api/storage-targets/${good.id}`, { token: admin })).json.data.healthStatus,
    'healthy',
  );
  assert.equal(
    (await call(app, 'GET', `/api/storage-targets/${bad.id}`, { token: admin })).json.data.healthStatus,
    'unhealthy',
  );

  await app.diContainer.cradle.storageHealth.runOnce();
  assert.equal(events.length, 1, 'a target that stays unhealthy does not alert again');

  await call(app, 'PUT', `/api/storage-targets/${bad.id}`, { token: admin, body: { config: { basePath: dir } } });
  const third = await app.diContainer.cradle.storageHealth.runOnce();
  assert.deepEqual(
    third.map((x) => [x.name, x.to]),
    [['bad', 'healthy']],
  );
  assert.deepEqual(
    events.map((e) => e.type),
    ['storage_unhealthy', 'storage_recovered'],
  );

  // Disabled targets are not checked.
  await call(app, 'PUT', `/api/storage-targets/${bad.id}`, {
    token: admin,
    body: { enabled: false, config: { basePath: join(file, 'sub') } },
  });
  assert.deepEqual(await app.diContainer.cradle.storageHealth.runOnce(), []);
  const em = app.diContainer.cradle.orm.em.fork();
  assert.equal((await em.findOneOrFail(StorageTargetEntity, { id: bad.id })).healthStatus, 'healthy');
});

test('secret fields are sealed at rest, masked in every response, and kept when the mask comes back', async (t) => {
  const fixture = new URL('../fixtures/storage-with-secrets/index.js', import.meta.url).pathname;
  const { app } = await build(t, { config: { plugins: [fixture] } });
  const admin = await setupAdmin(app);
  const body = {
    name: 'vault',
    type: 'secret_vault',
    config: { endpoint: 'https://vault.example', password: 'right-password', apiToken: 'tok-123' },
  };

  const created = await call(app, 'POST', '/api/storage-targets', { token: admin, body });
  assert.equal(created.status, 200, created.body);
  assert.equal(created.json.data.config.password, '********');
  assert.equal(created.json.data.config.apiToken, '********');
  assert.equal(created.json.data.config.endpoint, 'https://vault.example');
  assert.deepEqual(created.json.data.maskedFields, ['apiToken', 'password']);
  const id = created.json.data.id;

  for (const res of [
    await call(app, 'GET', `/api/storage-targets/${id}`, { token: admin }),
    await call(app, 'GET', '/api/storage-targets', { token: admin }),
  ]) {
    assert.ok(!res.body.includes('right-password') && !res.body.includes('tok-123'), 'a secret leaked in a response');
  }
  const em = app.diContainer.cradle.orm.em.fork();
  const raw = await em
    .getConnection()
    .execute<{ config: string; secrets: string }[]>('select config, secrets from storage_targets where id = ?', [id]);
  assert.ok(
    !raw[0]!.config.includes('right-password') && !raw[0]!.secrets.includes('right-password'),
    'the password is stored in clear',
  );
  assert.ok(!raw[0]!.secrets.includes('tok-123'));

  // The mask sent back keeps the stored secret; the saved test proves the real password is still there.
  const updated = await call(app, 'PUT', `/api/storage-targets/${id}`, {
    token: admin,
    body: { config: { endpoint: 'https://vault2.example', password: '********', apiToken: '' } },
  });
  assert.equal(updated.status, 200, updated.body);
  assert.equal(updated.json.data.config.endpoint, 'https://vault2.example');
  const test = await call(app, 'POST', `/api/storage-targets/${id}/test`, { token: admin });
  assert.equal(test.status, 200, test.body);
  assert.match(test.json.data.message, /vault2\.example/);

  // A new password replaces it.
  await call(app, 'PUT', `/api/storage-targets/${id}`, {
    token: admin,
    body: { config: { endpoint: 'https://vault2.example', password: 'wrong' } },
  });
  const failed = await call(app, 'POST', `/api/storage-targets/${id}/test`, { token: admin });
  assert.equal(failed.status, 400);
  assert.equal(failed.json.message, 'vault refused the password');

  // Audit entries never carry the secret either.
  const audit = await call(app, 'GET', '/api/audit-logs/export', { token: admin });
  assert.ok(!audit.body.includes('right-password'));
});

test('a target that a backup task stores to is in use: delete is 409 until the task lets go', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const [dirA, dirB] = [await tempDir(t), await tempDir(t)];
  const a = (await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(dirA, 'a') })).json.data.id;
  const b = (await call(app, 'POST', '/api/storage-targets', { token: admin, body: local(dirB, 'b') })).json.data.id;
  const task = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: { name: 'files', type: 'file', sourcePaths: ['/srv'], storageTargetIds: [a, b] },
  });
  assert.equal(task.status, 200, task.body);
  for (const id of [a, b]) {
    const res = await call(app, 'DELETE', `/api/storage-targets/${id}`, { token: admin });
    assert.equal(res.status, 409, 'the secondary target is in use too');
    assert.equal(res.json.code, 'STORAGE_TARGET_IN_USE');
  }
  await call(app, 'PUT', `/api/backup/tasks/${task.json.data.id}`, { token: admin, body: { storageTargetIds: [a] } });
  assert.equal((await call(app, 'DELETE', `/api/storage-targets/${b}`, { token: admin })).status, 200);
  assert.equal((await call(app, 'DELETE', `/api/storage-targets/${a}`, { token: admin })).status, 409);
});
