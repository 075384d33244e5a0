import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { NotificationChannelEntity } from '../../core/db/entities/notification.ts';
import { AuditLogEntity } from '../../core/db/entities/audit-log.ts';

/** Spec 4.6: channel CRUD with BackupX's fields, masked and sealed secrets, tests, access labels, audit. */

const SECRET = 'hook-secret-0123456789';

test('a channel is created, read with its secret masked, updated keeping a masked secret, and deleted; every change is audited', async (t) => {
  const { app, dataDir } = await build(t);
  const admin = await setupAdmin(app);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());

  const created = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'ops hook',
      type: 'webhook',
      enabled: true,
      onSuccess: false,
      onFailure: true,
      config: { url: receiver.url, secret: SECRET },
    },
  });
  assert.equal(created.status, 200, created.body);
  const channel = created.json.data;
  assert.equal(channel.name, 'ops hook');
  assert.equal(channel.type, 'webhook');
  assert.deepEqual(channel.eventTypes, []);
  assert.equal(channel.config.secret, '********');
  assert.deepEqual(channel.maskedFields, ['secret']);
  assert.ok(!created.body.includes(SECRET));

  // Sealed at rest: neither the row nor the database file holds the secret.
  const row = await app.diContainer.cradle.orm.em
    .fork()
    .findOneOrFail(NotificationChannelEntity, { id: channel.id }, { populate: ['secrets'] });
  assert.ok(row.secrets && !row.secrets.includes(SECRET) && !row.config.includes(SECRET));
  await app.diContainer.cradle.orm.em.fork().getConnection().execute('pragma wal_checkpoint(full)');
  assert.ok(
    !(await readFile(join(dataDir, 'backplane.db'))).includes(SECRET),
    'the database file holds the secret in clear',
  );

  const list = await call(app, 'GET', '/api/notifications', { token: admin });
  assert.equal(list.status, 200);
  assert.equal(list.headers['x-total-count'], '1');
  assert.deepEqual(
    list.json.data.map((c: any) => c.name),
    ['ops hook'],
  );
  assert.equal(list.json.data[0].config, undefined, 'the list shows no config');

  // The mask sent back keeps the stored secret: a test through the saved channel still signs with it.
  const updated = await call(app, 'PUT', `/api/notifications/${channel.id}`, {
    token: admin,
    body: {
      name: 'ops hook 2',
      type: 'webhook',
      enabled: true,
      onSuccess: true,
      onFailure: true,
      eventTypes: [],
      config: { url: receiver.url, secret: '********' },
    },
  });
  assert.equal(updated.status, 200, updated.body);
  assert.equal(updated.json.data.onSuccess, true);
  const tested = await call(app, 'POST', `/api/notifications/${channel.id}/test`, { token: admin });
  assert.equal(tested.status, 200, tested.body);
  assert.deepEqual({ success: tested.json.data.success }, { success: true });
  const [delivery] = await receiver.waitFor(1);
  assert.match(String(delivery!.headers['x-backplane-signature']), /^sha256=[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(delivery!.headers).includes(SECRET), 'the secret itself is never sent');

  const deleted = await call(app, 'DELETE', `/api/notifications/${channel.id}`, { token: admin });
  assert.deepEqual(deleted.json.data, { deleted: true });
  assert.equal(
    (await call(app, 'GET', `/api/notifications/${channel.id}`, { token: admin })).json.code,
    'NOTIFICATION_NOT_FOUND',
  );

  const audit = await app.diContainer.cradle.orm.em
    .fork()
    .find(AuditLogEntity, { category: 'notification' }, { orderBy: { id: 'asc' } });
  assert.deepEqual(
    audit.map((a) => a.action),
    ['create', 'update', 'test', 'delete'],
  );
  assert.ok(!audit.some((a) => JSON.stringify(a).includes(SECRET)));
});

test('bad channel input is a coded 400 or 409, never a 500', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const base = { name: 'c1', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } };
  assert.equal((await call(app, 'POST', '/api/notifications', { token: admin, body: base })).status, 200);
  const cases: Array<[unknown, number, string]> = [
    [base, 409, 'NOTIFICATION_NAME_EXISTS'],
    [{ ...base, name: 'c2', type: 'carrier_pigeon' }, 400, 'NOTIFICATION_TYPE_UNSUPPORTED'],
    [{ ...base, name: 'c3', config: {} }, 400, 'NOTIFICATION_INVALID'],
    [{ ...base, name: 'c4', config: { url: 'ftp://example.invalid/x' } }, 400, 'NOTIFICATION_INVALID'],
    [{ ...base, name: 'c5', eventTypes: ['backup_failed', 'backup_explode'] }, 400, 'NOTIFICATION_INVALID'],
    [{ ...base, name: 'x'.repeat(101) }, 400, 'INVALID_INPUT'],
    [{ ...base, name: 'c6', digestTime: '25:00', digest: 'daily' }, 400, 'INVALID_INPUT'],
  ];
  for (const [body, status, code] of cases) {
    const res = await call(app, 'POST', '/api/notifications', { token: admin, body });
    assert.equal(res.status, status, `${JSON.stringify(body)} -> ${res.body}`);
    assert.equal(res.json.code, code, res.body);
  }
  const missing = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: { ...base, name: 'c7', config: {} },
  });
  assert.ok(
    missing.json.details.some((d: any) => d.path === 'config/url'),
    missing.body,
  );
  const id = (await call(app, 'GET', '/api/notifications', { token: admin })).json.data[0].id;
  const retyped = await call(app, 'PUT', `/api/notifications/${id}`, { token: admin, body: { type: 'email' } });
  assert.equal(retyped.json.code, 'NOTIFICATION_TYPE_IMMUTABLE');
});

test('access labels: viewers read channels and their logs, operators change and test them', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const operator = await userWithRole(app, admin, 'operator');
  const body = { name: 'hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } };
  assert.equal((await call(app, 'POST', '/api/notifications', { token: viewer.token, body })).status, 403);
  const created = await call(app, 'POST', '/api/notifications', { token: operator.token, body });
  assert.equal(created.status, 200, created.body);
  const id = created.json.data.id;
  for (const url of [
    '/api/notifications',
    `/api/notifications/${id}`,
    `/api/notifications/${id}/deliveries`,
    '/api/notifications/types',
  ]) {
    assert.equal((await call(app, 'GET', url, { token: viewer.token })).status, 200, url);
    assert.equal((await call(app, 'GET', url)).status, 401, url);
  }
  for (const [method, url] of [
    ['PUT', `/api/notifications/${id}`],
    ['POST', `/api/notifications/${id}/test`],
    ['POST', '/api/notifications/test'],
    ['DELETE', `/api/notifications/${id}`],
  ] as const) {
    assert.equal(
      (await call(app, method, url, { token: viewer.token, body: method === 'DELETE' ? undefined : body })).status,
      403,
      `${method} ${url}`,
    );
  }
  assert.equal((await call(app, 'DELETE', `/api/notifications/${id}`, { token: operator.token })).status, 200);
});

test('testing an unsaved config delivers a test message, and a refusal is a 400 with the reason and without the secret', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const body = { name: 'draft', type: 'webhook', config: { url: receiver.url, secret: SECRET } };
  const ok = await call(app, 'POST', '/api/notifications/test', { token: admin, body });
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.json.data.success, true);
  const [got] = await receiver.waitFor(1);
  assert.equal(got!.json.event, 'test');
  assert.match(got!.json.body, /draft/);

  receiver.status = 500;
  const refused = await call(app, 'POST', '/api/notifications/test', { token: admin, body });
  assert.equal(refused.status, 400, refused.body);
  assert.equal(refused.json.code, 'NOTIFICATION_TEST_FAILED');
  assert.match(refused.json.message, /500/);
  assert.ok(!refused.body.includes(SECRET));
  assert.equal(
    (await call(app, 'GET', '/api/notifications', { token: admin })).json.data.length,
    0,
    'an unsaved test saves nothing',
  );
});

test('the type catalogue lists every installed channel type with its schema and fields', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'GET', '/api/notifications/types', { token: admin });
  assert.equal(res.status, 200);
  const types = res.json.data.map((x: any) => x.type);
  for (const type of [
    'discord',
    'email',
    'gotify',
    'matrix',
    'ntfy',
    'pushover',
    'slack',
    'teams',
    'telegram',
    'webhook',
  ])
    assert.ok(types.includes(type), `${type} is listed`);
  const email = res.json.data.find((x: any) => x.type === 'email');
  assert.deepEqual(email.addressKinds, ['email']);
  assert.ok(email.secretFields.includes('password'));
  assert.ok(email.options.some((o: any) => o.key === 'password' && o.isPassword));
  assert.equal(email.configSchema.type, 'object');
});
