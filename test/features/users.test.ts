import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import argon2 from 'argon2';
import { build, call, setupAdmin, apiKeyWithRole, ADMIN } from '../helpers/build.ts';
import { UserEntity } from '../../core/db/entities/user.ts';

const USER_VIEW_KEYS = [
  'createdAt',
  'disabled',
  'displayName',
  'email',
  'emailOtpEnabled',
  'failedLoginCount',
  'id',
  'lockedUntil',
  'mfaEnabled',
  'phone',
  'role',
  'smsOtpEnabled',
  'trustedDeviceCount',
  'twoFactorEnabled',
  'twoFactorRecoveryCodesRemaining',
  'updatedAt',
  'username',
  'webAuthnCredentialCount',
  'webAuthnEnabled',
];

type Cred = { token: string } | { apiKey: string };
const as = (cred: string | Cred): Cred => (typeof cred === 'string' ? { token: cred } : cred);

async function createUser(app: FastifyInstance, cred: string | Cred, body: Record<string, unknown>) {
  const res = await call(app, 'POST', '/api/users', { ...as(cred), body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

async function listUsers(app: FastifyInstance, cred: string | Cred, query: Record<string, string> = {}) {
  const res = await call(app, 'GET', '/api/users', { ...as(cred), query });
  assert.equal(res.status, 200, res.body);
  return { users: res.json.data as any[], total: Number(res.headers['x-total-count']) };
}

async function enabledAdmins(app: FastifyInstance, cred: string | Cred): Promise<string[]> {
  const { users } = await listUsers(app, cred, { limit: '1000' });
  return users
    .filter((u) => u.role === 'admin' && !u.disabled)
    .map((u) => u.username)
    .sort();
}

function assertError(res: Awaited<ReturnType<typeof call>>, status: number, code: string, what = ''): void {
  assert.equal(res.status, status, `${what} ${res.body.slice(0, 300)}`);
  assert.equal(res.json?.code, code, what);
  assert.equal(typeof res.json.message, 'string');
}

test('users: create, list with paging, update and delete', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);

  const plain = await createUser(app, admin, { username: 'plain.user', password: 'plain-password-1' });
  assert.deepEqual(Object.keys(plain).sort(), USER_VIEW_KEYS);
  assert.equal(plain.username, 'plain.user');
  assert.equal(plain.displayName, 'plain.user', 'the display name defaults to the username');
  assert.equal(plain.role, 'viewer', 'the role defaults to viewer');
  assert.equal(plain.email, '');
  assert.equal(plain.phone, '');
  assert.equal(plain.disabled, false);
  assert.ok(!Number.isNaN(Date.parse(plain.createdAt)) && plain.createdAt.endsWith('Z'));

  const full = await createUser(app, admin, {
    username: 'ops@example',
    password: 'ops-password-1',
    displayName: 'Ops Person',
    email: 'ops@example.com',
    phone: '+1 555 0100',
    role: 'operator',
    disabled: true,
  });
  assert.equal(full.displayName, 'Ops Person');
  assert.equal(full.email, 'ops@example.com');
  assert.equal(full.phone, '+1 555 0100');
  assert.equal(full.role, 'operator');
  assert.equal(full.disabled, true);
  const third = await createUser(app, admin, { username: 'third_user', password: 'third-password-1', role: 'admin' });
  assert.equal(third.role, 'admin');

  const all = await listUsers(app, admin);
  assert.equal(all.total, 4);
  assert.deepEqual(
    all.users.map((u) => u.username),
    [ADMIN.username, 'plain.user', 'ops@example', 'third_user'],
    'ordered by id',
  );
  for (const u of all.users) assert.deepEqual(Object.keys(u).sort(), USER_VIEW_KEYS);
  assert.deepEqual(all.users[2], full, 'the list shows what create returned');

  const page1 = await listUsers(app, admin, { limit: '2' });
  assert.equal(page1.total, 4, 'X-Total-Count is the total, not the page size');
  assert.deepEqual(
    page1.users.map((u) => u.username),
    [ADMIN.username, 'plain.user'],
  );
  const page2 = await listUsers(app, admin, { limit: '2', offset: '2' });
  assert.equal(page2.total, 4);
  assert.deepEqual(
    page2.users.map((u) => u.username),
    ['ops@example', 'third_user'],
  );
  const beyond = await listUsers(app, admin, { offset: '10' });
  assert.equal(beyond.total, 4);
  assert.deepEqual(beyond.users, []);
  const badPages: Record<string, string>[] = [
    { limit: '0' },
    { limit: '1001' },
    { limit: 'abc' },
    { offset: '-1' },
    { limit: '1.5' },
  ];
  for (const query of badPages) {
    assertError(
      await call(app, 'GET', '/api/users', { token: admin, query }),
      400,
      'INVALID_INPUT',
      JSON.stringify(query),
    );
  }

  const updated = await call(app, 'PUT', `/api/users/${plain.id}`, {
    token: admin,
    body: { displayName: 'Plain P.', email: 'p@example.com', phone: '123', role: 'operator' },
  });
  assert.equal(updated.status, 200, updated.body);
  assert.equal(updated.json.data.id, plain.id);
  assert.equal(updated.json.data.username, 'plain.user');
  assert.equal(updated.json.data.displayName, 'Plain P.');
  assert.equal(updated.json.data.email, 'p@example.com');
  assert.equal(updated.json.data.phone, '123');
  assert.equal(updated.json.data.role, 'operator');
  assert.ok(Date.parse(updated.json.data.updatedAt) >= Date.parse(plain.updatedAt));
  const afterUpdate = (await listUsers(app, admin)).users.find((u) => u.id === plain.id);
  assert.deepEqual(afterUpdate, updated.json.data, 'the update is stored');

  // Unknown fields are ignored: neither the id nor the token version can be smuggled in.
  const smuggled = await call(app, 'PUT', `/api/users/${plain.id}`, {
    token: admin,
    body: { id: 999, tokenVersion: 50, phone: '456' },
  });
  assert.equal(smuggled.status, 200, smuggled.body);
  assert.equal(smuggled.json.data.id, plain.id);
  assert.equal(smuggled.json.data.phone, '456');

  // The username can be changed, as in the reference; a taken one is refused.
  assertError(
    await call(app, 'PUT', `/api/users/${plain.id}`, { token: admin, body: { username: ADMIN.username } }),
    409,
    'USER_USERNAME_EXISTS',
    'rename onto a taken name',
  );
  const renamed = await call(app, 'PUT', `/api/users/${plain.id}`, {
    token: admin,
    body: { username: 'renamed.user' },
  });
  assert.equal(renamed.status, 200, renamed.body);
  assert.equal(renamed.json.data.username, 'renamed.user');

  const pw = await call(app, 'PUT', `/api/users/${plain.id}`, {
    token: admin,
    body: { password: 'changed-by-admin-1' },
  });
  assert.equal(pw.status, 200);
  assert.equal(
    (await call(app, 'POST', '/api/auth/login', { body: { username: 'renamed.user', password: 'changed-by-admin-1' } }))
      .status,
    200,
  );

  const del = await call(app, 'DELETE', `/api/users/${plain.id}`, { token: admin });
  assert.equal(del.status, 200, del.body);
  assert.deepEqual(del.json, { code: 'OK', message: 'success', data: { deleted: true } });
  const afterDelete = await listUsers(app, admin);
  assert.equal(afterDelete.total, 3);
  assert.ok(!afterDelete.users.some((u) => u.id === plain.id));

  assertError(
    await call(app, 'DELETE', `/api/users/${plain.id}`, { token: admin }),
    404,
    'USER_NOT_FOUND',
    'second delete',
  );
  assertError(
    await call(app, 'PUT', `/api/users/${plain.id}`, { token: admin, body: { displayName: 'ghost' } }),
    404,
    'USER_NOT_FOUND',
    'update deleted',
  );
  assertError(
    await call(app, 'PUT', '/api/users/424242', { token: admin, body: {} }),
    404,
    'USER_NOT_FOUND',
    'update unknown',
  );
  assertError(
    await call(app, 'DELETE', '/api/users/424242', { token: admin }),
    404,
    'USER_NOT_FOUND',
    'delete unknown',
  );

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'user', limit: '100' } });
  const rows: any[] = audit.json.data.items;
  const forPlain = rows
    .filter((r) => r.targetId === String(plain.id))
    .map((r) => r.action)
    .sort();
  assert.deepEqual(forPlain, ['create', 'delete', 'update', 'update', 'update', 'update']);
  assert.ok(rows.every((r) => r.username === ADMIN.username));
  const details = rows.filter((r) => r.action === 'update').map((r) => r.detail);
  assert.ok(details.includes('password'), `a password change is audited by name only: ${JSON.stringify(details)}`);
  assert.ok(!JSON.stringify(rows).includes('changed-by-admin-1'), 'no password value in the audit log');
  assert.ok(
    !details.some((d) => /tokenVersion|id=/.test(d)),
    `ignored fields are not audited as changes: ${JSON.stringify(details)}`,
  );
  assert.ok(details.includes('username=renamed.user'), 'a rename is audited');
});

test('users: duplicate usernames are refused with 409, also when created concurrently', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  await createUser(app, admin, { username: 'dup', password: 'dup-password-1' });
  assertError(
    await call(app, 'POST', '/api/users', { token: admin, body: { username: 'dup', password: 'other-password-1' } }),
    409,
    'USER_USERNAME_EXISTS',
  );
  assertError(
    await call(app, 'POST', '/api/users', {
      token: admin,
      body: { username: ADMIN.username, password: 'other-password-1' },
    }),
    409,
    'USER_USERNAME_EXISTS',
    'the setup admin',
  );

  const racers = await Promise.all(
    [1, 2, 3].map((i) =>
      call(app, 'POST', '/api/users', { token: admin, body: { username: 'racer', password: `racer-password-${i}` } }),
    ),
  );
  assert.deepEqual(racers.map((r) => r.status).sort(), [200, 409, 409], racers.map((r) => r.body).join('\n'));
  for (const r of racers.filter((x) => x.status === 409)) assert.equal(r.json.code, 'USER_USERNAME_EXISTS');
  const { users } = await listUsers(app, admin);
  assert.equal(users.filter((u) => u.username === 'racer').length, 1);
  assert.equal(users.filter((u) => u.username === 'dup').length, 1);
});

test('users: the last enabled admin cannot be deleted, demoted or disabled; an admin cannot delete themselves', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  // Changes go through an admin's API key: a key is not the user, so "delete yourself" never
  // masks the last-admin rule. A key acts with its creator's current rights, so once its creator
  // stops being an admin the test carries on with a key of an admin that still is.
  const keyOf = async (username: string, password: string): Promise<Cred> => {
    const session = await call(app, 'POST', '/api/auth/login', { body: { username, password } });
    assert.equal(session.status, 200, session.body);
    return { apiKey: (await apiKeyWithRole(app, session.json.data.token, 'admin')).key };
  };
  let keyCred: Cred = { apiKey: (await apiKeyWithRole(app, admin, 'admin')).key };
  const me = (await listUsers(app, admin)).users[0]!;
  const put = (id: number, body: object, cred = keyCred) => call(app, 'PUT', `/api/users/${id}`, { ...cred, body });
  const del = (id: number, cred = keyCred) => call(app, 'DELETE', `/api/users/${id}`, cred);

  assertError(await put(me.id, { role: 'operator' }), 400, 'USER_LAST_ADMIN', 'demote');
  assertError(
    await put(me.id, { role: 'viewer', displayName: 'Half Done' }),
    400,
    'USER_LAST_ADMIN',
    'demote with another change',
  );
  assertError(await put(me.id, { disabled: true }), 400, 'USER_LAST_ADMIN', 'disable');
  assertError(await del(me.id), 400, 'USER_LAST_ADMIN', 'delete');
  assertError(
    await call(app, 'DELETE', `/api/users/${me.id}`, { token: admin }),
    400,
    'USER_SELF_DELETE',
    'delete self',
  );
  assertError(
    await call(app, 'PUT', `/api/users/${me.id}`, { token: admin, body: { role: 'viewer' } }),
    400,
    'USER_LAST_ADMIN',
    'demote self',
  );
  assert.deepEqual(
    (await listUsers(app, admin)).users[0],
    me,
    'refused operations change nothing (no half-applied update)',
  );
  const noop = await put(me.id, { role: 'admin', disabled: false });
  assert.equal(noop.status, 200, `re-stating the role is allowed: ${noop.body}`);
  assert.equal((await call(app, 'GET', '/api/auth/profile', { token: admin })).status, 200, 'and revokes nothing');

  // A disabled admin does not count as another admin.
  const dormant = await createUser(app, admin, {
    username: 'dormant',
    password: 'dormant-password-1',
    role: 'admin',
    disabled: true,
  });
  assertError(await put(me.id, { role: 'viewer' }), 400, 'USER_LAST_ADMIN', 'a disabled second admin');
  assertError(await del(me.id), 400, 'USER_LAST_ADMIN', 'a disabled second admin');
  // Changing the disabled admin is fine: it is not the last enabled one.
  assert.equal((await put(dormant.id, { role: 'viewer' })).status, 200);
  assert.equal((await put(dormant.id, { role: 'admin' })).status, 200);

  // Once a second admin is enabled, the first can be demoted, but still cannot delete themselves.
  assert.equal((await put(dormant.id, { disabled: false })).status, 200);
  assertError(
    await call(app, 'DELETE', `/api/users/${me.id}`, { token: admin }),
    400,
    'USER_SELF_DELETE',
    'self-delete with another admin present',
  );
  const demoted = await put(me.id, { role: 'operator' });
  assert.equal(demoted.status, 200, demoted.body);
  assert.equal(demoted.json.data.role, 'operator');
  keyCred = await keyOf('dormant', 'dormant-password-1');
  assert.deepEqual(await enabledAdmins(app, keyCred), ['dormant']);

  // Now "dormant" is the last one.
  assertError(await put(dormant.id, { disabled: true }), 400, 'USER_LAST_ADMIN', 'the new last admin');
  assertError(await put(dormant.id, { role: 'viewer' }), 400, 'USER_LAST_ADMIN', 'the new last admin');
  assertError(await del(dormant.id), 400, 'USER_LAST_ADMIN', 'the new last admin');
  // With a second enabled admin, deletion works.
  const spare = await createUser(app, keyCred, { username: 'spare', password: 'spare-password-1', role: 'admin' });
  const gone = await del(dormant.id);
  assert.equal(gone.status, 200, gone.body);
  keyCred = await keyOf('spare', 'spare-password-1');
  assertError(await del(spare.id), 400, 'USER_LAST_ADMIN', 'spare is the last');
  assert.deepEqual(await enabledAdmins(app, keyCred), ['spare']);

  // Two admins removed at the same moment, each by the other: one of them must stay. The loser is
  // refused by the last-admin rule, or (when the winner's change lands before its credential is
  // checked) because its key's creator is no longer an enabled admin.
  const lost = ['USER_LAST_ADMIN', 'AUTH_FORBIDDEN', 'AUTH_KEY_CREATOR_DISABLED', 'AUTH_KEY_CREATOR_DELETED'];
  const rival = await createUser(app, keyCred, { username: 'rival', password: 'rival-password-1', role: 'admin' });
  const rivalKey = await keyOf('rival', 'rival-password-1');
  const race = await Promise.all([
    put(spare.id, { role: 'viewer' }, rivalKey),
    put(rival.id, { disabled: true }, keyCred),
  ]);
  assert.deepEqual(race.filter((r) => r.status === 200).length, 1, race.map((r) => r.body).join('\n'));
  assert.ok(lost.includes(race.find((r) => r.status !== 200)!.json.code), race.map((r) => r.body).join('\n'));
  const survivorKey = race[0]!.status === 200 ? rivalKey : keyCred;
  const remaining = race[0]!.status === 200 ? 'rival' : 'spare';
  assert.deepEqual(await enabledAdmins(app, survivorKey), [remaining]);
  // Same race with deletes, starting again from two enabled admins.
  const third = await createUser(app, survivorKey, { username: 'third', password: 'third-password-1', role: 'admin' });
  const thirdKey = await keyOf('third', 'third-password-1');
  const survivorId = (await listUsers(app, survivorKey)).users.find((u) => u.username === remaining)!.id;
  const deletes = await Promise.all([del(survivorId, thirdKey), del(third.id, survivorKey)]);
  assert.deepEqual(deletes.filter((r) => r.status === 200).length, 1, deletes.map((r) => r.body).join('\n'));
  assert.ok(lost.includes(deletes.find((r) => r.status !== 200)!.json.code), deletes.map((r) => r.body).join('\n'));
  const last = deletes[0]!.status === 200 ? thirdKey : survivorKey;
  assert.equal((await enabledAdmins(app, last)).length, 1, 'an enabled admin always remains');
});

test('users: passwords are stored as argon2id hashes and never appear in a response', async (t) => {
  const { app } = await build(t);
  const setup = await call(app, 'POST', '/api/auth/setup', { body: ADMIN });
  const admin: string = setup.json.data.token;
  const password = 'Sup3r-Secret-Passw0rd';
  const created = await call(app, 'POST', '/api/users', { token: admin, body: { username: 'hashed', password } });
  const twin = await call(app, 'POST', '/api/users', { token: admin, body: { username: 'twin', password } });
  const em = app.diContainer.cradle.orm.em.fork();
  const pair = await em.find(UserEntity, { username: { $in: ['hashed', 'twin'] } }, { populate: ['passwordHash'] });
  assert.equal(pair.length, 2);
  assert.notEqual(pair[0]!.passwordHash, pair[1]!.passwordHash, 'the same password is salted differently per user');
  const updated = await call(app, 'PUT', `/api/users/${created.json.data.id}`, {
    token: admin,
    body: { password: 'Another-Secret-9', displayName: 'Hashed' },
  });
  const list = await call(app, 'GET', '/api/users', { token: admin });
  const session = await call(app, 'POST', '/api/auth/login', { body: { username: 'twin', password } });
  const profile = await call(app, 'GET', '/api/auth/profile', { token: session.json.data.token });
  const changed = await call(app, 'PUT', '/api/auth/password', {
    token: session.json.data.token,
    body: { oldPassword: password, newPassword: 'Twin-Changed-77' },
  });

  for (const res of [setup, created, twin, updated, list, session, profile, changed]) {
    assert.equal(res.status, 200, res.body);
    for (const secret of [password, ADMIN.password, 'Another-Secret-9', 'Twin-Changed-77', '$argon2']) {
      assert.ok(!res.body.includes(secret), `a response contains ${secret}: ${res.body}`);
    }
    assert.ok(!/"password(Hash)?"|"tokenVersion"/.test(res.body), `a response names a secret field: ${res.body}`);
  }

  em.clear();
  const rows = await em.find(UserEntity, {}, { populate: ['passwordHash'], orderBy: { id: 'asc' } });
  assert.equal(rows.length, 3);
  for (const row of rows)
    assert.match(
      row.passwordHash,
      /^\$argon2id\$v=19\$(?=[^$]*m=\d+)(?=[^$]*t=\d+)(?=[^$]*p=\d+)[a-z0-9=,]+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/,
      `${row.username} is hashed with argon2id`,
    );
  const byName = new Map(rows.map((r) => [r.username, r]));
  assert.ok(
    await argon2.verify(byName.get('hashed')!.passwordHash, 'Another-Secret-9'),
    'the admin-set password is the stored one',
  );
  assert.ok(!(await argon2.verify(byName.get('hashed')!.passwordHash, password)), 'the old password no longer matches');
  assert.ok(await argon2.verify(byName.get('twin')!.passwordHash, 'Twin-Changed-77'));
  assert.ok(await argon2.verify(byName.get(ADMIN.username)!.passwordHash, ADMIN.password));

  // Raw rows: no column holds a plaintext password.
  const raw: Record<string, unknown>[] = await em.getConnection().execute('select * from users');
  const dump = JSON.stringify(raw);
  for (const secret of [password, ADMIN.password, 'Another-Secret-9', 'Twin-Changed-77'])
    assert.ok(!dump.includes(secret), `the users table holds ${secret} in clear`);
});

test('users: bad input is a 4xx with a stable code, never a 5xx', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const target = await createUser(app, admin, { username: 'target', password: 'target-password-1' });
  const before = await listUsers(app, admin);
  const auth = { authorization: `Bearer ${admin}` };
  const raw = (method: 'POST' | 'PUT', url: string, payload: string | Buffer, contentType?: string) =>
    app.inject({ method, url, payload, headers: contentType ? { ...auth, 'content-type': contentType } : auth });
  const long = 'x'.repeat(100_000);

  // Malformed JSON.
  for (const [method, url] of [
    ['POST', '/api/users'],
    ['PUT', `/api/users/${target.id}`],
  ] as const) {
    for (const payload of [
      '{"username": "a",',
      '{username: "abc"}',
      '{"a":1}}',
      'nope',
      '{"__proto__": {"role": "admin"}}',
    ]) {
      const res = await raw(method, url, payload, 'application/json');
      assert.equal(res.statusCode, 400, `${method} ${payload}: ${res.body}`);
      assert.equal(res.json().code, 'INVALID_JSON', `${method} ${payload}`);
    }
    const empty = await raw(method, url, '', 'application/json');
    assert.equal(empty.statusCode, 400, `empty JSON body: ${empty.body}`);
    assert.equal(empty.json().code, 'INVALID_INPUT');
  }

  // Wrong types, missing fields, out-of-range and too-long values.
  const createCases: Record<string, unknown> = {
    'null body': null,
    'array body': [],
    'string body': 'username',
    'number body': 42,
    'no fields': {},
    'no password': { username: 'someone' },
    'no username': { password: 'some-password-1' },
    'username object': { username: { first: 'a' }, password: 'some-password-1' },
    'password array': { username: 'someone', password: ['some-password-1', 'x'] },
    'password too short': { username: 'someone', password: 'short' },
    'password too long': { username: 'someone', password: long },
    'username too long': { username: long, password: 'some-password-1' },
    'username too short': { username: 'ab', password: 'some-password-1' },
    'username with space': { username: 'some one', password: 'some-password-1' },
    'username with slash': { username: 'some/one', password: 'some-password-1' },
    'username leading dash': { username: '-someone', password: 'some-password-1' },
    'username with NUL': { username: 'some\u0000one', password: 'some-password-1' },
    'unknown role': { username: 'someone', password: 'some-password-1', role: 'root' },
    'role number': { username: 'someone', password: 'some-password-1', role: 3 },
    'disabled not boolean': { username: 'someone', password: 'some-password-1', disabled: 'yes' },
    'displayName empty': { username: 'someone', password: 'some-password-1', displayName: '' },
    'displayName too long': { username: 'someone', password: 'some-password-1', displayName: long },
    'displayName object': { username: 'someone', password: 'some-password-1', displayName: { a: 1 } },
    'displayName with NUL': { username: 'someone', password: 'some-password-1', displayName: 'a\u0000b' },
    'email too long': { username: 'someone', password: 'some-password-1', email: `${'e'.repeat(250)}@x.com` },
    'email with NUL': { username: 'someone', password: 'some-password-1', email: 'a\u0000@b.c' },
    'phone too long': { username: 'someone', password: 'some-password-1', phone: '1'.repeat(65) },
    'phone with NUL': { username: 'someone', password: 'some-password-1', phone: '1\u00002' },
  };
  for (const [name, body] of Object.entries(createCases)) {
    const res = await raw('POST', '/api/users', JSON.stringify(body), 'application/json');
    assert.equal(res.statusCode, 400, `create, ${name}: ${res.body.slice(0, 300)}`);
    const json = res.json();
    assert.equal(json.code, 'INVALID_INPUT', `create, ${name}`);
    assert.ok(Array.isArray(json.details) && json.details.length > 0, `create, ${name}: details`);
    for (const d of json.details)
      assert.ok(typeof d.path === 'string' && typeof d.message === 'string', `create, ${name}: detail shape`);
  }
  const missing = await call(app, 'POST', '/api/users', { token: admin, body: { password: 'some-password-1' } });
  assert.ok(
    missing.json.details.some((d: any) => d.path === 'body/username'),
    `the missing field is named: ${missing.body}`,
  );

  const updateCases: Record<string, unknown> = {
    'password too short': { password: 'short' },
    'password too long': { password: long },
    'unknown role': { role: 'superuser' },
    'disabled string': { disabled: 'maybe' },
    'displayName too long': { displayName: long },
    'displayName with NUL': { displayName: '\u0000' },
    'email object': { email: { a: 1 } },
  };
  for (const [name, body] of Object.entries(updateCases)) {
    const res = await call(app, 'PUT', `/api/users/${target.id}`, { token: admin, body });
    assert.equal(res.status, 400, `update, ${name}: ${res.body.slice(0, 300)}`);
    assert.equal(res.json.code, 'INVALID_INPUT', `update, ${name}`);
    assert.ok(Array.isArray(res.json.details) && res.json.details.length > 0);
  }

  // Bad ids.
  for (const id of [
    'abc',
    '0',
    '-1',
    '1.5',
    '123456789012345678901234567890',
    '9007199254740992',
    '1abc',
    '%20',
    'null',
  ]) {
    for (const method of ['PUT', 'DELETE'] as const) {
      const res = await call(app, method, `/api/users/${id}`, {
        token: admin,
        ...(method === 'PUT' ? { body: { displayName: 'x' } } : {}),
      });
      assert.equal(res.status, 400, `${method} /api/users/${id}: ${res.body}`);
      assert.equal(res.json.code, 'INVALID_ID', `${method} /api/users/${id}`);
      assert.ok(Array.isArray(res.json.details));
    }
  }

  // Body size and content type.
  const huge = JSON.stringify({
    username: 'someone',
    password: 'some-password-1',
    displayName: 'y'.repeat(1024 * 1024 + 10),
  });
  for (const [method, url] of [
    ['POST', '/api/users'],
    ['PUT', `/api/users/${target.id}`],
  ] as const) {
    const res = await raw(method, url, huge, 'application/json');
    assert.equal(res.statusCode, 413, `${method} oversized: ${res.body.slice(0, 200)}`);
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
  }
  const body = JSON.stringify({ username: 'someone', password: 'some-password-1' });
  for (const type of [
    'application/xml',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'image/png',
  ]) {
    const res = await raw('POST', '/api/users', body, type);
    assert.equal(res.statusCode, 415, `${type}: ${res.body}`);
    assert.equal(res.json().code, 'UNSUPPORTED_MEDIA_TYPE');
  }
  const noType = await raw('POST', '/api/users', body);
  assert.equal(noType.statusCode, 415, `no content type: ${noType.body}`);
  // text/plain has a parser in Fastify, so it fails validation instead: still a client error.
  const text = await raw('POST', '/api/users', body, 'text/plain');
  assert.ok(text.statusCode === 400 || text.statusCode === 415, `text/plain: ${text.statusCode}`);

  // None of that created, changed or broke anything.
  const after = await listUsers(app, admin);
  assert.equal(after.total, before.total);
  assert.deepEqual(after.users, before.users);
});
