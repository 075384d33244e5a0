import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import type { AwilixContainer } from 'awilix';
import { build, call, setupAdmin, userWithRole, apiKeyWithRole, BEHIND_PROXY } from '../helpers/build.ts';
import { SETTINGS, MASK } from '../../core/features/settings/settings-catalogue.ts';
import { SettingEntity } from '../../core/db/entities/setting.ts';
import { createJobScope, type Cradle } from '../../core/container.ts';

/**
 * The allow-listed rows of the settings table as stored, read past every service. (The table
 * also holds internal rows, such as the first-admin setup marker, which are not settings.)
 */
async function storedRows(app: FastifyInstance): Promise<Map<string, string>> {
  const em = app.diContainer.cradle.orm.em.fork();
  const rows = await em.find(SettingEntity, { key: { $in: Object.keys(SETTINGS) } });
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** The decrypted server-side values, as the audit webhook reads them. */
async function serverValues(app: FastifyInstance): Promise<Record<string, string>> {
  // @fastify/awilix types its container with the app-level cradle only; the job scope adds the scoped services.
  const scope = createJobScope(app.diContainer as unknown as AwilixContainer<Cradle>);
  try {
    return await scope.cradle.settings.values();
  } finally {
    await scope.dispose();
  }
}

async function auditRows(app: FastifyInstance) {
  const rows = await app.diContainer.cradle.orm.em
    .fork()
    .getConnection()
    .execute('select * from audit_logs order by id');
  return rows as Record<string, unknown>[];
}

const EXPECTED_DEFAULTS = {
  site_name: 'Backplane',
  language: 'en',
  timezone: '',
  backup_notification_enabled: 'true',
  bandwidth_limit: '',
  audit_webhook_url: '',
  audit_webhook_secret: '',
  audit_retention_days: '0',
  mfa_required_for_admins: 'false',
  mfa_enrollment_grace_days: '7',
  passkey_passwordless_login: 'false',
};

test('GET /api/settings returns exactly the allow-listed keys with their defaults', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'GET', '/api/settings', { token: admin });
  assert.equal(res.status, 200);
  assert.equal(res.json.code, 'OK');
  assert.equal(res.json.message, 'success');
  assert.deepEqual(res.json.data, EXPECTED_DEFAULTS);
  // The catalogue and the wire agree key for key (a key added to one must reach the other).
  assert.deepEqual(Object.keys(res.json.data).sort(), Object.keys(SETTINGS).sort());
  for (const [key, def] of Object.entries(SETTINGS)) assert.equal(res.json.data[key], def.default, key);
  // Nothing was written by reading.
  assert.equal((await storedRows(app)).size, 0);
});

test('rows outside the allow-list are never returned, even when the table holds them', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const em = app.diContainer.cradle.orm.em.fork();
  em.create(SettingEntity, { key: 'security.jwt_secret', value: 'do-not-leak-me', updatedAt: new Date() });
  await em.flush();
  const res = await call(app, 'GET', '/api/settings', { token: admin });
  assert.equal(res.status, 200);
  assert.deepEqual(res.json.data, EXPECTED_DEFAULTS);
  assert.ok(!res.body.includes('do-not-leak-me'));
  assert.ok(!res.body.includes('setup'), 'the setup marker row is internal');
});

test('PUT /api/settings updates a partial map, returns the whole map and persists it', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const put = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: {
      site_name: '  Vault  ',
      language: 'zh-CN',
      timezone: 'Europe/Berlin',
      backup_notification_enabled: false,
      bandwidth_limit: '',
      audit_retention_days: 30,
    },
  });
  assert.equal(put.status, 200, put.body);
  const expected = {
    ...EXPECTED_DEFAULTS,
    site_name: 'Vault', // trimmed
    language: 'zh-CN',
    timezone: 'Europe/Berlin',
    backup_notification_enabled: 'false', // booleans and numbers become strings
    audit_retention_days: '30',
  };
  assert.deepEqual(put.json.data, expected);
  assert.deepEqual((await call(app, 'GET', '/api/settings', { token: admin })).json.data, expected);

  // A second partial update leaves the other keys alone.
  const again = await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_retention_days: '36500' } });
  assert.equal(again.status, 200, again.body);
  assert.deepEqual(again.json.data, { ...expected, audit_retention_days: '36500' });

  const rows = await storedRows(app);
  assert.equal(rows.get('site_name'), 'Vault');
  assert.equal(rows.get('audit_retention_days'), '36500');
  assert.equal(rows.get('bandwidth_limit'), '');
  assert.equal(rows.has('audit_webhook_url'), false, 'keys never sent are not written');
});

test('a setting Backplane cannot honour yet is refused at any value but its default, and nothing is written', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { site_name: 'Kept out', bandwidth_limit: '10M' },
  });
  assert.equal(res.status, 400, res.body);
  assert.equal(res.json.code, 'SETTINGS_UNSUPPORTED');
  assert.match(res.json.message, /bandwidth_limit/);
  assert.deepEqual(
    res.json.details.map((d: { key: string }) => d.key),
    ['bandwidth_limit'],
  );
  assert.match(res.json.details[0].message, /10M/);
  assert.equal((await storedRows(app)).size, 0, 'the whole update was refused');
  const off = await call(app, 'PUT', '/api/settings', { token: admin, body: { bandwidth_limit: '' } });
  assert.equal(off.status, 200, 'the default ("no limit") is accepted');
});

test('viewers (token or API key) can read settings', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  await call(app, 'PUT', '/api/settings', { token: admin, body: { site_name: 'Readable' } });
  const viewer = await userWithRole(app, admin, 'viewer');
  const key = await apiKeyWithRole(app, admin, 'viewer');
  for (const creds of [{ token: viewer.token }, { apiKey: key.key }]) {
    const res = await call(app, 'GET', '/api/settings', creds);
    assert.equal(res.status, 200);
    assert.equal(res.json.data.site_name, 'Readable');
  }
});

test('invalid values and unknown keys are refused as a whole with per-key details', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const invalid: [string, unknown][] = [
    ['site_name', 'x'.repeat(129)],
    ['language', 'english'],
    ['language', 'EN'],
    ['timezone', 'Mars/Olympus_Mons'],
    ['backup_notification_enabled', 'yes'],
    ['backup_notification_enabled', 1],
    ['bandwidth_limit', '10 MB'],
    ['bandwidth_limit', '-5M'],
    ['audit_webhook_url', 'not a url'],
    ['audit_webhook_url', 'ftp://example.com/hook'],
    ['audit_webhook_url', `https://example.com/${'a'.repeat(2048)}`],
    ['audit_webhook_secret', 's'.repeat(257)],
    ['audit_retention_days', '-1'],
    ['audit_retention_days', '36501'],
    ['audit_retention_days', '1.5'],
    ['audit_retention_days', 'ten'],
  ];
  for (const [key, value] of invalid) {
    // A valid key in the same request must not be written either.
    const res = await call(app, 'PUT', '/api/settings', {
      token: admin,
      body: { site_name: 'Should Not Stick', [key]: value },
    });
    assert.equal(res.status, 400, `${key}=${String(value).slice(0, 40)}`);
    assert.equal(res.json.code, 'SETTINGS_INVALID', `${key}: ${res.body.slice(0, 200)}`);
    assert.ok(Array.isArray(res.json.details), 'details is a list');
    const detail = res.json.details.find((d: { key: string }) => d.key === key);
    assert.ok(detail, `details name ${key}: ${JSON.stringify(res.json.details)}`);
    assert.equal(typeof detail.message, 'string');
    assert.ok(detail.message.length > 0);
  }

  const unknown = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { site_name: 'Nope', 'security.jwt_secret': 'x', theme: 'dark' },
  });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.json.code, 'SETTINGS_INVALID');
  assert.deepEqual(unknown.json.details.map((d: { key: string }) => d.key).sort(), ['security.jwt_secret', 'theme']);

  // Several problems are reported together.
  const many = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { language: '??', audit_retention_days: 'x' },
  });
  assert.equal(many.status, 400);
  assert.deepEqual(many.json.details.map((d: { key: string }) => d.key).sort(), ['audit_retention_days', 'language']);

  assert.equal((await storedRows(app)).size, 0, 'nothing was written');
  assert.deepEqual((await call(app, 'GET', '/api/settings', { token: admin })).json.data, EXPECTED_DEFAULTS);
  const audits = await auditRows(app);
  assert.equal(
    audits.filter((r) => r.category === 'settings').length,
    0,
    'a refused update is not audited as an update',
  );
});

test('bodies of the wrong shape are schema errors, not settings errors', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  for (const body of [
    [{ site_name: 'x' }],
    { site_name: ['x'] },
    { site_name: ['x', 'y'] },
    { site_name: { nested: 1 } },
    { site_name: null },
  ]) {
    const res = await call(app, 'PUT', '/api/settings', { token: admin, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.code, 'INVALID_INPUT', JSON.stringify(body));
  }
  assert.equal((await storedRows(app)).size, 0);
});

test('audit_webhook_secret is sealed at rest, only ever shown masked, and kept when the mask is sent back', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const secret = 'hunter2-plaintext-webhook-secret';

  // Unset: empty, not the mask.
  assert.equal((await call(app, 'GET', '/api/settings', { token: admin })).json.data.audit_webhook_secret, '');
  // Sending the mask while nothing is stored stores nothing.
  const maskOnly = await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_secret: MASK } });
  assert.equal(maskOnly.status, 200);
  assert.equal(maskOnly.json.data.audit_webhook_secret, '');
  assert.equal((await storedRows(app)).has('audit_webhook_secret'), false);

  const put = await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_secret: secret } });
  assert.equal(put.status, 200);
  assert.equal(put.json.data.audit_webhook_secret, MASK);
  assert.ok(!put.body.includes(secret));

  const viewer = await userWithRole(app, admin, 'viewer');
  for (const token of [admin, viewer.token]) {
    const got = await call(app, 'GET', '/api/settings', { token });
    assert.equal(got.json.data.audit_webhook_secret, '********');
    assert.ok(!got.body.includes(secret));
  }

  const row = (await storedRows(app)).get('audit_webhook_secret');
  assert.ok(row, 'the secret row exists');
  assert.ok(!row.includes(secret), 'the row does not hold the plaintext');
  assert.notEqual(row, MASK);
  // Raw SQL too, in case the entity layer ever transforms values.
  const raw = await app.diContainer.cradle.orm.em
    .fork()
    .getConnection()
    .execute("select value from settings where key = 'audit_webhook_secret'");
  assert.equal(raw.length, 1);
  assert.ok(!String(raw[0]!.value).includes(secret));
  assert.equal((await serverValues(app)).audit_webhook_secret, secret, 'the server can still read it');

  // The mask sent back (as clients do after a GET) keeps the stored value; other keys still change.
  const roundTrip = await call(app, 'GET', '/api/settings', { token: admin });
  const back = await call(app, 'PUT', '/api/settings', {
    token: admin,
    body: { ...roundTrip.json.data, site_name: 'After Round Trip' },
  });
  assert.equal(back.status, 200, back.body);
  assert.equal(back.json.data.audit_webhook_secret, MASK);
  assert.equal(back.json.data.site_name, 'After Round Trip');
  assert.equal((await serverValues(app)).audit_webhook_secret, secret);
  assert.equal((await storedRows(app)).get('audit_webhook_secret'), row, 'the sealed value was not rewritten');

  // A new secret replaces it; an empty string clears it.
  await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_secret: 'second-secret' } });
  assert.equal((await serverValues(app)).audit_webhook_secret, 'second-secret');
  const cleared = await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_webhook_secret: '' } });
  assert.equal(cleared.json.data.audit_webhook_secret, '');
  assert.equal((await serverValues(app)).audit_webhook_secret, '');
  assert.equal((await storedRows(app)).get('audit_webhook_secret'), '');
});

test('a settings update is audited with the key names and without the secret value', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY });
  const admin = await setupAdmin(app);
  const secret = 'audit-must-not-see-this-9f3a';
  const res = await call(app, 'PUT', '/api/settings', {
    token: admin,
    headers: { 'x-forwarded-for': '198.51.100.23' },
    body: { site_name: 'Audited', audit_webhook_secret: secret },
  });
  assert.equal(res.status, 200);
  const entries = (await auditRows(app)).filter((r) => r.category === 'settings');
  assert.equal(entries.length, 1);
  const entry = entries[0]!;
  assert.equal(entry.action, 'update');
  assert.equal(entry.target_type, 'settings');
  assert.equal(entry.username, 'admin');
  assert.equal(entry.client_ip, '198.51.100.23');
  const named = String(entry.detail).split(', ').sort();
  assert.deepEqual(named, ['audit_webhook_secret', 'site_name']);
  for (const r of await auditRows(app)) assert.ok(!JSON.stringify(r).includes(secret), 'no audit row holds the secret');

  // The list endpoint shows the same entry.
  const list = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'settings' } });
  assert.equal(list.json.data.items.length, 1);
  assert.ok(!list.body.includes(secret));
});
