import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, ADMIN } from '../helpers/build.ts';
import { ApiKeyEntity } from '../../core/db/entities/api-key.ts';

/** The summary's fields of a key never used and without expiry (`lastUsedAt` and `expiresAt` are left out until they have a value). */
const KEY_VIEW_KEYS = ['createdAt', 'createdBy', 'disabled', 'expired', 'id', 'name', 'prefix', 'role'];

async function createKey(app: FastifyInstance, token: string, body: Record<string, unknown>) {
  const res = await call(app, 'POST', '/api/api-keys', { token, body });
  assert.equal(res.status, 200, res.body);
  return res.json.data as { apiKey: any; plainKey: string };
}

async function listKeys(app: FastifyInstance, token: string, query: Record<string, string> = {}) {
  const res = await call(app, 'GET', '/api/api-keys', { token, query });
  assert.equal(res.status, 200, res.body);
  return { keys: res.json.data as any[], total: Number(res.headers['x-total-count']), body: res.body };
}

/** A request with the key sent both ways the contract allows. */
async function bothWays(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  key: string,
  body?: unknown,
) {
  const viaHeader = await call(app, method, url, { apiKey: key, body });
  const viaBearer = await call(app, method, url, { token: key, body });
  return [viaHeader, viaBearer] as const;
}

function assertRefused(res: Awaited<ReturnType<typeof call>>, status: number, code: string, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.body}`);
  assert.equal(res.json?.code, code, what);
}

test('api keys: the plaintext is returned once, on create, and stored only as a hash', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const started = Date.now();
  const first = await createKey(app, admin, { name: 'ci pipeline', role: 'operator' });
  assert.match(first.plainKey, /^bpk_[0-9a-f]{48}$/);
  const view = first.apiKey;
  assert.deepEqual(Object.keys(view).sort(), KEY_VIEW_KEYS);
  assert.equal(view.name, 'ci pipeline');
  assert.equal(view.role, 'operator');
  assert.equal(view.prefix, first.plainKey.slice(0, 12), 'the prefix identifies the key without revealing it');
  assert.equal(view.createdBy, ADMIN.username);
  assert.ok(!('lastUsedAt' in view), 'never used');
  assert.ok(!('expiresAt' in view), 'no ttlHours: never expires');
  assert.equal(view.disabled, false);
  assert.equal(view.expired, false);
  assert.ok(Date.parse(view.createdAt) >= started - 1000 && Date.parse(view.createdAt) <= Date.now() + 1000);
  assert.ok(!JSON.stringify(view).includes(first.plainKey.slice(12)), 'the summary holds no secret part');

  const second = await createKey(app, admin, { name: 'backup-viewer', role: 'viewer', ttlHours: 0 });
  assert.notEqual(second.plainKey, first.plainKey);
  assert.ok(!('expiresAt' in second.apiKey), 'ttlHours 0: never expires');

  const { keys, total, body } = await listKeys(app, admin);
  assert.equal(total, 2);
  assert.deepEqual(
    keys.map((k) => k.id),
    [first.apiKey.id, second.apiKey.id],
  );
  for (const k of keys) assert.deepEqual(Object.keys(k).sort(), KEY_VIEW_KEYS);
  for (const plain of [first.plainKey, second.plainKey]) {
    assert.ok(!body.includes(plain.slice(12)), 'the list never includes a plaintext key or its secret part');
    assert.ok(!body.includes(createHash('sha256').update(plain).digest('hex')), 'nor its hash');
  }
  assert.ok(!/plainKey|keyHash|hash/i.test(body), body);
  const page = await listKeys(app, admin, { limit: '1', offset: '1' });
  assert.equal(page.total, 2);
  assert.deepEqual(
    page.keys.map((k) => k.id),
    [second.apiKey.id],
  );

  // The stored row holds a SHA-256 of the key and nothing from which the key could be read back.
  const em = app.diContainer.cradle.orm.em.fork();
  const row = await em.findOneOrFail(ApiKeyEntity, { id: first.apiKey.id });
  assert.equal(row.keyHash, createHash('sha256').update(first.plainKey).digest('hex'));
  const raw: Record<string, unknown>[] = await em.getConnection().execute('select * from api_keys');
  const dump = JSON.stringify(raw);
  for (const plain of [first.plainKey, second.plainKey])
    assert.ok(!dump.includes(plain.slice(12)), 'no column holds the secret part');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'api_key' } });
  assert.ok(!audit.body.includes(first.plainKey.slice(12)), 'the audit log never holds the key');
});

test('api keys: a key authenticates via X-Api-Key and via Bearer, with its own role', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = (await createKey(app, admin, { name: 'viewer-key', role: 'viewer' })).plainKey;
  const operator = (await createKey(app, admin, { name: 'operator-key', role: 'operator' })).plainKey;
  const adminKey = (await createKey(app, admin, { name: 'admin-key', role: 'admin' })).plainKey;

  for (const res of await bothWays(app, 'GET', '/api/audit-logs', viewer))
    assert.equal(res.status, 200, `viewer key reads: ${res.body}`);
  for (const res of await bothWays(app, 'GET', '/api/settings', viewer))
    assert.equal(res.status, 200, `viewer key reads settings: ${res.body}`);
  for (const res of await bothWays(app, 'GET', '/api/users', viewer))
    assertRefused(res, 403, 'AUTH_FORBIDDEN', 'viewer key on an admin route');
  for (const res of await bothWays(app, 'POST', '/api/api-keys', viewer, { name: 'escalate', role: 'admin' }))
    assertRefused(res, 403, 'AUTH_FORBIDDEN', 'viewer key minting keys');
  for (const res of await bothWays(app, 'GET', '/api/users', operator))
    assertRefused(res, 403, 'AUTH_FORBIDDEN', 'operator key on an admin route');
  for (const res of await bothWays(app, 'POST', '/api/users', operator, {
    username: 'sneaky',
    password: 'sneaky-password-1',
    role: 'admin',
  })) {
    assertRefused(res, 403, 'AUTH_FORBIDDEN', 'operator key creating users');
  }

  const [listA, listB] = await bothWays(app, 'GET', '/api/users', adminKey);
  assert.equal(listA.status, 200, listA.body);
  assert.equal(listB.status, 200, listB.body);
  assert.equal(listA.headers['x-total-count'], '1', 'the refused creations created nobody');
  const created = await call(app, 'POST', '/api/users', {
    apiKey: adminKey,
    body: { username: 'made-by-key', password: 'made-by-key-pw-1', role: 'viewer' },
  });
  assert.equal(created.status, 200, created.body);
  const minted = await call(app, 'POST', '/api/api-keys', { token: adminKey, body: { name: 'child', role: 'viewer' } });
  assert.equal(minted.status, 200, minted.body);
  assert.equal(minted.json.data.apiKey.createdBy, 'api-key:admin-key');

  const userAudit = await call(app, 'GET', '/api/audit-logs', { apiKey: adminKey, query: { category: 'user' } });
  const row = userAudit.json.data.items.find((r: any) => r.action === 'create' && r.targetName === 'made-by-key');
  assert.ok(row, "the key's action is audited");
  assert.equal(row.username, 'api-key:admin-key', 'the audit names the key, not a numeric subject');

  // Keys that do not exist, or are not keys at all.
  const unknown = `bpk_${'0'.repeat(48)}`;
  for (const key of [
    unknown,
    `bpk_${'a'.repeat(47)}`,
    `bpk_${'a'.repeat(49)}`,
    adminKey.toUpperCase(),
    `bpn_${adminKey.slice(4)}`,
    'bpk_',
    'x',
  ]) {
    const res = await call(app, 'GET', '/api/audit-logs', { apiKey: key });
    assertRefused(res, 401, 'AUTH_UNAUTHORIZED', `X-Api-Key ${key.slice(0, 10)}…`);
  }
  assertRefused(
    await call(app, 'GET', '/api/audit-logs', { token: unknown }),
    401,
    'AUTH_UNAUTHORIZED',
    'unknown key as Bearer',
  );
  // A bad X-Api-Key is not rescued by a valid JWT next to it, or the other way round.
  assertRefused(
    await call(app, 'GET', '/api/users', { apiKey: unknown, token: admin }),
    401,
    'AUTH_UNAUTHORIZED',
    'bad key with a good JWT',
  );
  assertRefused(
    await call(app, 'GET', '/api/users', { apiKey: viewer, token: admin }),
    403,
    'AUTH_FORBIDDEN',
    'the key decides the role',
  );
});

test('api keys: toggle disables and re-enables; revoke deletes for good', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { apiKey, plainKey } = await createKey(app, admin, { name: 'toggled', role: 'viewer' });
  const toggle = (body?: unknown) => call(app, 'PUT', `/api/api-keys/${apiKey.id}/toggle`, { token: admin, body });
  const works = async () => (await call(app, 'GET', '/api/audit-logs', { apiKey: plainKey })).status === 200;

  assert.equal(await works(), true);
  const off = await toggle({ disabled: true });
  assert.equal(off.status, 200, off.body);
  assert.deepEqual(Object.keys(off.json.data).sort(), [...KEY_VIEW_KEYS, 'lastUsedAt'].sort(), 'the key has been used');
  assert.equal(off.json.data.disabled, true);
  for (const res of await bothWays(app, 'GET', '/api/audit-logs', plainKey))
    assertRefused(res, 401, 'AUTH_KEY_DISABLED', 'disabled key');
  assert.equal((await listKeys(app, admin)).keys[0].disabled, true, 'the list shows the state');

  const again = await toggle({ disabled: true });
  assert.equal(again.json.data.disabled, true, 'an explicit value sets, it does not flip');
  const flippedOn = await toggle();
  assert.equal(flippedOn.status, 200, flippedOn.body);
  assert.equal(flippedOn.json.data.disabled, false, 'no body flips');
  assert.equal(await works(), true);
  const flippedOff = await toggle({});
  assert.equal(flippedOff.json.data.disabled, true, 'an empty object flips too');
  assert.equal(await works(), false);
  const on = await toggle({ disabled: false });
  assert.equal(on.json.data.disabled, false);
  assert.equal(await works(), true);

  assertRefused(await toggle({ disabled: 'sometimes' }), 400, 'INVALID_INPUT', 'toggle with a non-boolean');
  assertRefused(
    await call(app, 'PUT', '/api/api-keys/424242/toggle', { token: admin, body: { disabled: true } }),
    404,
    'API_KEY_NOT_FOUND',
    'toggle unknown',
  );
  for (const id of ['abc', '0', '-1', '1.5', '123456789012345678901234567890']) {
    assertRefused(
      await call(app, 'PUT', `/api/api-keys/${id}/toggle`, { token: admin }),
      400,
      'INVALID_ID',
      `toggle ${id}`,
    );
    assertRefused(
      await call(app, 'DELETE', `/api/api-keys/${id}`, { token: admin }),
      400,
      'INVALID_ID',
      `revoke ${id}`,
    );
  }

  const revoked = await call(app, 'DELETE', `/api/api-keys/${apiKey.id}`, { token: admin });
  assert.equal(revoked.status, 200, revoked.body);
  assert.deepEqual(revoked.json, { code: 'OK', message: 'success', data: { revoked: true } });
  for (const res of await bothWays(app, 'GET', '/api/audit-logs', plainKey))
    assertRefused(res, 401, 'AUTH_UNAUTHORIZED', 'revoked key');
  assert.equal((await listKeys(app, admin)).total, 0);
  assertRefused(
    await call(app, 'DELETE', `/api/api-keys/${apiKey.id}`, { token: admin }),
    404,
    'API_KEY_NOT_FOUND',
    'revoke twice',
  );
  assertRefused(await toggle(), 404, 'API_KEY_NOT_FOUND', 'toggle revoked');

  const audit = await call(app, 'GET', '/api/audit-logs', {
    token: admin,
    query: { category: 'api_key', limit: '100' },
  });
  const rows: any[] = audit.json.data.items.filter((r: any) => r.targetId === String(apiKey.id));
  // Newest first: create, disable, disable, enable, disable, enable, revoke.
  assert.deepEqual(rows.map((r) => r.action).reverse(), [
    'create',
    'disable',
    'disable',
    'enable',
    'disable',
    'enable',
    'revoke',
  ]);
  for (const r of rows) {
    assert.equal(r.username, ADMIN.username);
    assert.equal(r.targetType, 'api_key');
    assert.equal(r.targetName, 'toggled');
  }
  assert.equal(rows.at(-1).detail, 'role=viewer');
});

test('api keys: expiry from ttlHours; an expired key is refused with AUTH_KEY_EXPIRED', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const before = Date.now();
  const { apiKey, plainKey } = await createKey(app, admin, { name: 'short-lived', role: 'admin', ttlHours: 24 });
  const expiresAt = Date.parse(apiKey.expiresAt);
  assert.ok(
    expiresAt >= before + 24 * 3600_000 - 1000 && expiresAt <= Date.now() + 24 * 3600_000 + 1000,
    `expiresAt ${apiKey.expiresAt} is 24 h ahead`,
  );
  assert.equal(apiKey.expired, false);
  assert.equal((await call(app, 'GET', '/api/users', { apiKey: plainKey })).status, 200, 'works before it expires');

  const longest = await createKey(app, admin, { name: 'ten-years', role: 'viewer', ttlHours: 87600 });
  assert.ok(Date.parse(longest.apiKey.expiresAt) > Date.now() + 9 * 365 * 24 * 3600_000);
  for (const ttlHours of [-1, 87601, 1.5, 'soon', [1, 2], { h: 1 }]) {
    assertRefused(
      await call(app, 'POST', '/api/api-keys', { token: admin, body: { name: 'bad-ttl', role: 'viewer', ttlHours } }),
      400,
      'INVALID_INPUT',
      `ttlHours ${String(ttlHours)}`,
    );
  }

  const em = app.diContainer.cradle.orm.em.fork();
  await em.nativeUpdate(ApiKeyEntity, { id: apiKey.id }, { expiresAt: new Date(Date.now() - 1000) });
  for (const res of await bothWays(app, 'GET', '/api/users', plainKey))
    assertRefused(res, 401, 'AUTH_KEY_EXPIRED', 'expired key');
  const listed = (await listKeys(app, admin)).keys.find((k) => k.id === apiKey.id);
  assert.equal(listed.expired, true, 'the list marks the key expired');

  await em.nativeUpdate(ApiKeyEntity, { id: apiKey.id }, { expiresAt: new Date(Date.now() + 3600_000) });
  assert.equal(
    (await call(app, 'GET', '/api/users', { apiKey: plainKey })).status,
    200,
    'moving the expiry back makes it valid again',
  );
});

test('api keys: lastUsedAt is recorded on use', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const a = await createKey(app, admin, { name: 'header-user', role: 'viewer' });
  const b = await createKey(app, admin, { name: 'bearer-user', role: 'viewer' });
  const unused = await createKey(app, admin, { name: 'unused', role: 'viewer' });

  const before = Date.now();
  assert.equal((await call(app, 'GET', '/api/audit-logs', { apiKey: a.plainKey })).status, 200);
  assert.equal((await call(app, 'GET', '/api/audit-logs', { token: b.plainKey })).status, 200);
  const after = Date.now();

  const keys = new Map((await listKeys(app, admin)).keys.map((k) => [k.id, k]));
  for (const used of [a, b]) {
    const lastUsed = keys.get(used.apiKey.id).lastUsedAt;
    assert.equal(typeof lastUsed, 'string', `${used.apiKey.name} has lastUsedAt`);
    const at = Date.parse(lastUsed);
    assert.ok(at >= before - 1000 && at <= after + 1000, `lastUsedAt ${lastUsed} is the time of use`);
  }
  assert.ok(!('lastUsedAt' in keys.get(unused.apiKey.id)));

  // A refused use is not a use.
  assert.equal(
    (await call(app, 'PUT', `/api/api-keys/${unused.apiKey.id}/toggle`, { token: admin, body: { disabled: true } }))
      .status,
    200,
  );
  assert.equal((await call(app, 'GET', '/api/audit-logs', { apiKey: unused.plainKey })).status, 401);
  assert.ok(!('lastUsedAt' in (await listKeys(app, admin)).keys.find((k) => k.id === unused.apiKey.id)));
});

test('api keys: refused on interactive account routes with AUTH_INTERACTIVE_ONLY', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { plainKey } = await createKey(app, admin, { name: 'automation', role: 'admin' });
  const requests: [method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown][] = [
    ['GET', '/api/auth/profile'],
    ['PUT', '/api/auth/password', { oldPassword: ADMIN.password, newPassword: 'taken-over-by-key-1' }],
    ['POST', '/api/auth/logout'],
  ];
  for (const [method, url, body] of requests) {
    for (const res of await bothWays(app, method, url, plainKey, body))
      assertRefused(res, 403, 'AUTH_INTERACTIVE_ONLY', `${method} ${url}`);
  }
  // The refused password change changed nothing.
  assert.equal(
    (
      await call(app, 'POST', '/api/auth/login', {
        body: { username: ADMIN.username, password: 'taken-over-by-key-1' },
      })
    ).status,
    401,
  );
  assert.equal(
    (await call(app, 'GET', '/api/auth/profile', { token: admin })).status,
    200,
    "the admin's session is intact",
  );
});

test('api keys: create input is validated; long names never overflow stored columns', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const cases: Record<string, unknown> = {
    'no fields': {},
    'no role': { name: 'x' },
    'no name': { role: 'viewer' },
    'empty name': { name: '', role: 'viewer' },
    'name too long': { name: 'n'.repeat(129), role: 'viewer' },
    'huge name': { name: 'n'.repeat(100_000), role: 'viewer' },
    'name with NUL': { name: 'a\u0000b', role: 'viewer' },
    'name object': { name: { a: 1 }, role: 'viewer' },
    'unknown role': { name: 'x', role: 'root' },
    'null body': null,
  };
  for (const [name, body] of Object.entries(cases)) {
    const res = await call(app, 'POST', '/api/api-keys', { token: admin, body });
    assertRefused(res, 400, 'INVALID_INPUT', name);
    assert.ok(Array.isArray(res.json.details), `${name}: details`);
  }
  const bad = await app.inject({
    method: 'POST',
    url: '/api/api-keys',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    payload: '{"name":',
  });
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.json().code, 'INVALID_JSON');
  assert.equal((await listKeys(app, admin)).total, 0, 'nothing was created');

  // A key named at the maximum length mints another key: "api-key:<name>" must still fit createdBy (64 characters).
  const longName = 'k'.repeat(128);
  const parent = await createKey(app, admin, { name: longName, role: 'admin' });
  assert.equal(parent.apiKey.name, longName);
  const child = await call(app, 'POST', '/api/api-keys', {
    apiKey: parent.plainKey,
    body: { name: 'child', role: 'viewer' },
  });
  assert.equal(child.status, 200, child.body);
  const createdBy: string = child.json.data.apiKey.createdBy;
  assert.ok(createdBy.startsWith('api-key:kkk'), createdBy);
  assert.ok(createdBy.length <= 64, `createdBy fits its 64-character column (got ${createdBy.length})`);
});

test("a key never exceeds its creator's current role, and dies with a disabled or deleted creator", async (t) => {
  const { app } = await build(t);
  const root = await setupAdmin(app);
  const made = await call(app, 'POST', '/api/users', {
    token: root,
    body: { username: 'second-admin', password: 'second-admin-pw-1', role: 'admin' },
  });
  assert.equal(made.status, 200, made.body);
  const secondId: number = made.json.data.id;
  const login = await call(app, 'POST', '/api/auth/login', {
    body: { username: 'second-admin', password: 'second-admin-pw-1' },
  });
  const second: string = login.json.data.token;
  const { plainKey: adminKey } = await createKey(app, second, { name: 'second-admin-key', role: 'admin' });
  // A key minted with an admin key acts for the same creator.
  const minted = await call(app, 'POST', '/api/api-keys', {
    apiKey: adminKey,
    body: { name: 'minted', role: 'operator' },
  });
  assert.equal(minted.status, 200, minted.body);
  const mintedKey: string = minted.json.data.plainKey;
  assert.equal(
    (await call(app, 'GET', '/api/users', { apiKey: adminKey })).status,
    200,
    'an admin key of an admin works',
  );

  // Demoted to viewer: the admin key reads like a viewer and no more.
  assert.equal(
    (await call(app, 'PUT', `/api/users/${secondId}`, { token: root, body: { role: 'viewer' } })).status,
    200,
  );
  assertRefused(
    await call(app, 'GET', '/api/users', { apiKey: adminKey }),
    403,
    'AUTH_FORBIDDEN',
    'admin key of a demoted creator on an admin route',
  );
  assertRefused(
    await call(app, 'POST', '/api/storage-targets/test', { apiKey: mintedKey, body: {} }),
    403,
    'AUTH_FORBIDDEN',
    'operator key of a viewer creator on an operator route',
  );
  assert.equal((await call(app, 'GET', '/api/backup/tasks', { apiKey: adminKey })).status, 200, 'viewer rights remain');
  // Promoted back: the key's own role is the ceiling again.
  assert.equal(
    (await call(app, 'PUT', `/api/users/${secondId}`, { token: root, body: { role: 'admin' } })).status,
    200,
  );
  assert.equal((await call(app, 'GET', '/api/users', { apiKey: adminKey })).status, 200);

  // Disabled creator: every key refused with its own code.
  assert.equal(
    (await call(app, 'PUT', `/api/users/${secondId}`, { token: root, body: { disabled: true } })).status,
    200,
  );
  assertRefused(
    await call(app, 'GET', '/api/backup/tasks', { apiKey: adminKey }),
    401,
    'AUTH_KEY_CREATOR_DISABLED',
    'key of a disabled creator',
  );
  assertRefused(
    await call(app, 'GET', '/api/backup/tasks', { apiKey: mintedKey }),
    401,
    'AUTH_KEY_CREATOR_DISABLED',
    'minted key of a disabled creator',
  );
  assert.equal(
    (await call(app, 'PUT', `/api/users/${secondId}`, { token: root, body: { disabled: false } })).status,
    200,
  );
  assert.equal(
    (await call(app, 'GET', '/api/backup/tasks', { apiKey: adminKey })).status,
    200,
    'enabled again, the key works again',
  );

  // Deleted creator: refused, whether or not the rows of the keys survive the user.
  assert.equal((await call(app, 'DELETE', `/api/users/${secondId}`, { token: root })).status, 200);
  assertRefused(
    await call(app, 'GET', '/api/backup/tasks', { apiKey: adminKey }),
    401,
    'AUTH_KEY_CREATOR_DELETED',
    'key of a deleted creator',
  );
  assertRefused(
    await call(app, 'GET', '/api/backup/tasks', { apiKey: mintedKey }),
    401,
    'AUTH_KEY_CREATOR_DELETED',
    'minted key of a deleted creator',
  );
  // A key of a live admin is untouched by all this.
  const { plainKey: rootKey } = await createKey(app, root, { name: 'root-key', role: 'admin' });
  assert.equal((await call(app, 'GET', '/api/users', { apiKey: rootKey })).status, 200);
});
