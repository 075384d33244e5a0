import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, apiKeyWithRole, ADMIN, BEHIND_PROXY } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { DEFAULT_LOGIN_LIMITS } from '../../core/auth/login-limiter.ts';
import { UserSessionEntity } from '../../core/db/entities/login.ts';

/** Sessions (docs/account-security.md#sessions): one row per token, checked per request, listed and ended by their owner. */

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';

async function signIn(app: FastifyInstance, who: { username: string; password: string }, ua: string, ip: string) {
  const res = await call(app, 'POST', '/api/auth/login', {
    body: who,
    headers: { 'user-agent': ua, 'x-forwarded-for': ip },
  });
  assert.equal(res.status, 200, res.body);
  return res.json.data.token as string;
}

const profile = (app: FastifyInstance, token: string) => call(app, 'GET', '/api/auth/profile', { token });

test('logout ends the token it was called with, and only that one', async (t) => {
  const { app } = await build(t);
  await setupAdmin(app);
  const a = await signIn(app, ADMIN, FIREFOX, '127.0.0.1');
  const b = await signIn(app, ADMIN, CHROME, '127.0.0.1');
  const out = await call(app, 'POST', '/api/auth/logout', { token: a });
  assert.deepEqual([out.status, out.json.data], [200, { loggedOut: true }]);
  const after = await profile(app, a);
  assert.deepEqual([after.status, after.json.code], [401, 'AUTH_UNAUTHORIZED'], 'the same bearer token reads nothing');
  assert.equal((await call(app, 'POST', '/api/auth/logout', { token: a })).status, 401);
  assert.equal((await profile(app, b)).status, 200, 'another session of the same user goes on');
});

test('sessions: the caller sees their live sessions, ends one or all others; others are 404; API keys are refused', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY });
  const admin = await setupAdmin(app);
  const bob = { username: 'bob', password: 'bob-password-1' };
  assert.equal((await call(app, 'POST', '/api/users', { token: admin, body: bob })).status, 200);
  const laptop = await signIn(app, bob, FIREFOX, '198.51.100.7');
  const desktop = await signIn(app, bob, CHROME, '203.0.113.9');
  const third = await signIn(app, bob, 'curl/8.5.0', '203.0.113.10');
  const bobOther = await signIn(app, bob, FIREFOX, '203.0.113.11');
  await call(app, 'POST', '/api/auth/logout', { token: bobOther });

  const list = await call(app, 'GET', '/api/auth/sessions', { token: laptop });
  assert.equal(list.status, 200, list.body);
  assert.equal(list.headers['x-total-count'], '3');
  const rows = list.json.data as any[];
  assert.deepEqual(
    rows.map((r) => r.address).sort(),
    ['198.51.100.7', '203.0.113.10', '203.0.113.9'],
    'no ended session',
  );
  const mine = rows.find((r) => r.current);
  assert.deepEqual([mine.client, mine.address, mine.userAgent], ['Firefox on Linux', '198.51.100.7', FIREFOX]);
  assert.equal(rows.filter((r) => r.current).length, 1);
  assert.equal(rows.find((r) => r.address === '203.0.113.9').client, 'Chrome on Windows');
  for (const r of rows) {
    assert.deepEqual(Object.keys(r).sort(), [
      'address',
      'client',
      'createdAt',
      'current',
      'expiresAt',
      'id',
      'lastUsedAt',
      'userAgent',
    ]);
    assert.ok(Date.parse(r.lastUsedAt) >= Date.parse(r.createdAt));
  }
  assert.ok(!list.body.includes(laptop.split('.')[1]!), 'no token in the list');

  // One session ended by its owner: refused at once; a second try, or another user's session, is 404.
  const desktopRow = rows.find((r) => r.address === '203.0.113.9');
  const del = await call(app, 'DELETE', `/api/auth/sessions/${desktopRow.id}`, { token: laptop });
  assert.deepEqual([del.status, del.json.data], [200, { revoked: true }]);
  assert.equal((await profile(app, desktop)).status, 401);
  assert.equal((await call(app, 'DELETE', `/api/auth/sessions/${desktopRow.id}`, { token: laptop })).status, 404);
  const adminRows = (await call(app, 'GET', '/api/auth/sessions', { token: admin })).json.data as any[];
  const foreign = await call(app, 'DELETE', `/api/auth/sessions/${adminRows[0].id}`, { token: laptop });
  assert.deepEqual([foreign.status, foreign.json.code], [404, 'AUTH_SESSION_NOT_FOUND']);
  assert.equal((await profile(app, admin)).status, 200, "the admin's session is untouched");
  assert.equal((await call(app, 'DELETE', '/api/auth/sessions/0', { token: laptop })).json.code, 'INVALID_ID');

  // Sign out everywhere else: the third goes, the caller stays.
  const others = await call(app, 'POST', '/api/auth/sessions/revoke-others', { token: laptop });
  assert.deepEqual([others.status, others.json.data], [200, { revoked: 1 }]);
  assert.equal((await profile(app, third)).status, 401);
  assert.equal((await profile(app, laptop)).status, 200);
  const left = (await call(app, 'GET', '/api/auth/sessions', { token: laptop })).json.data as any[];
  assert.deepEqual(
    left.map((r) => r.current),
    [true],
  );

  // Account routes: an API key, even an admin's, lists and ends no session.
  const key = (await apiKeyWithRole(app, admin, 'admin')).key;
  for (const [method, url] of [
    ['GET', '/api/auth/sessions'],
    ['DELETE', `/api/auth/sessions/${left[0].id}`],
    ['POST', '/api/auth/sessions/revoke-others'],
  ] as const) {
    const res = await call(app, method, url, { apiKey: key });
    assert.deepEqual([res.status, res.json.code], [403, 'AUTH_INTERACTIVE_ONLY'], `${method} ${url}`);
    assert.equal((await call(app, method, url)).status, 401, `${method} ${url} without credentials`);
  }
  assert.equal((await profile(app, laptop)).status, 200);

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'auth', limit: '500' } });
  const actions = (audit.json.data.items as any[]).map((r) => `${r.username} ${r.action}`);
  assert.ok(actions.includes('bob session_revoke'));
  assert.ok(actions.includes('bob session_revoke_others'));
});

test('sessions: a password change ends the others, an admin disable ends all; last use is written at most once a minute', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const carol = { username: 'carol', password: 'carol-password-1' };
  const created = await call(app, 'POST', '/api/users', { token: admin, body: carol });
  const one = await signIn(app, carol, FIREFOX, '127.0.0.1');
  const two = await signIn(app, carol, CHROME, '127.0.0.1');

  // Last use: an old stamp is renewed by the next request; a fresh one is left alone.
  const em = app.diContainer.cradle.orm.em.fork();
  const old = new Date(Date.now() - 5 * 60_000);
  await em.nativeUpdate(UserSessionEntity, { userId: created.json.data.id }, { lastUsedAt: old });
  assert.equal((await profile(app, one)).status, 200);
  const rows = await em.fork().find(UserSessionEntity, { userId: created.json.data.id }, { orderBy: { id: 'asc' } });
  assert.ok(rows[0]!.lastUsedAt.getTime() > old.getTime(), 'the used session is stamped');
  assert.equal(rows[1]!.lastUsedAt.getTime(), old.getTime(), 'the unused one is not');
  const stamped = rows[0]!.lastUsedAt.getTime();
  assert.equal((await profile(app, one)).status, 200);
  const again = await em.fork().findOneOrFail(UserSessionEntity, { id: rows[0]!.id });
  assert.equal(again.lastUsedAt.getTime(), stamped, 'within the minute nothing is written');

  const changed = await call(app, 'PUT', '/api/auth/password', {
    token: one,
    body: { oldPassword: carol.password, newPassword: 'carol-password-2' },
  });
  assert.equal(changed.status, 200, changed.body);
  assert.equal((await profile(app, two)).status, 401);
  const listed = (await call(app, 'GET', '/api/auth/sessions', { token: one })).json.data as any[];
  assert.deepEqual(
    listed.map((r) => r.current),
    [true],
    'only the session that made the change is left',
  );

  const disabled = await call(app, 'PUT', `/api/users/${created.json.data.id}`, {
    token: admin,
    body: { disabled: true },
  });
  assert.equal(disabled.status, 200, disabled.body);
  assert.equal((await profile(app, one)).status, 401);
  const enabled = await call(app, 'PUT', `/api/users/${created.json.data.id}`, {
    token: admin,
    body: { disabled: false },
  });
  assert.equal(enabled.status, 200);
  assert.equal((await profile(app, one)).status, 401, 'enabling again revives no session');
  const revokedRows = await em.fork().count(UserSessionEntity, { userId: created.json.data.id, revokedAt: null });
  assert.equal(revokedRows, 0, 'every row is marked revoked');
});

test('two masters on one PostgreSQL database: a session ended on one is refused on the other, and the cap is shared', {
  timeout: 180_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_sessions');
  if (!url) return;
  const secretKey = randomBytes(32).toString('hex');
  const limits = { ...DEFAULT_LOGIN_LIMITS, accountDelayMs: 1, accountMaxDelayMs: 2 };
  const config = { databaseUrl: url, secretKey, ...BEHIND_PROXY, loginLockoutThreshold: 20 };
  const first = await build(t, { config, build: { loginLimits: limits } });
  const a = first.app;
  const b = (
    await build(t, {
      config: { ...config, ageIdentityFile: join(first.dataDir, 'backup.agekey') },
      build: { loginLimits: limits },
    })
  ).app;
  const setup = await call(a, 'POST', '/api/auth/setup', { body: ADMIN });
  assert.equal(setup.status, 200, setup.body);
  const admin: string = setup.json.data.token;
  // The client that set the master up has signed in: its device token makes it a trusted client of the admin.
  const adminDevice: string = setup.json.data.deviceToken;

  // Logout on A ends the token on B; a session ended on B is refused on A.
  const t1 = await signIn(b, ADMIN, FIREFOX, '192.0.2.1');
  const t2 = await signIn(a, ADMIN, CHROME, '192.0.2.2');
  assert.equal((await profile(b, t1)).status, 200);
  assert.equal((await call(a, 'POST', '/api/auth/logout', { token: t1 })).status, 200);
  assert.equal((await profile(b, t1)).status, 401, 'logged out on A, refused on B');
  const rows = (await call(b, 'GET', '/api/auth/sessions', { token: admin })).json.data as any[];
  const row2 = rows.find((r) => r.address === '192.0.2.2');
  assert.equal((await call(b, 'DELETE', `/api/auth/sessions/${row2.id}`, { token: admin })).status, 200);
  assert.equal((await profile(a, t2)).status, 401, 'revoked on B, refused on A');

  // Wrong passwords sent at once to both masters: taken one at a time across them, counted once, locked everywhere.
  const CAP = 20;
  const answers = await Promise.all(
    Array.from({ length: CAP }, (_, i) =>
      call(i % 2 ? a : b, 'POST', '/api/auth/login', {
        body: { username: ADMIN.username, password: `guess-${i}` },
        headers: { 'x-forwarded-for': `198.18.0.${i + 1}` },
      }),
    ),
  );
  assert.deepEqual([...new Set(answers.map((r) => r.json.code))], ['AUTH_INVALID_CREDENTIALS']);
  const audit = await call(a, 'GET', '/api/audit-logs', {
    token: admin,
    query: { action: 'login_failed', limit: '500' },
  });
  const numbers = (audit.json.data.items as any[])
    .map((r) => Number(/failure=(\d+)/.exec(r.detail)?.[1]))
    .sort((x, y) => x - y);
  assert.deepEqual(
    numbers,
    Array.from({ length: CAP }, (_, i) => i + 1),
    'no two attempts overlapped, on either master',
  );
  for (const app of [a, b]) {
    const res = await call(app, 'POST', '/api/auth/login', {
      body: ADMIN,
      headers: { 'x-forwarded-for': '203.0.113.99' },
    });
    assert.deepEqual([res.status, res.json.code], [429, 'AUTH_ACCOUNT_LOCKED']);
  }
  // The admin's own client still signs in, on either master: nobody locks the admin out.
  for (const app of [a, b]) {
    const owner = await call(app, 'POST', '/api/auth/login', {
      body: { ...ADMIN, deviceToken: adminDevice },
      headers: { 'x-forwarded-for': '203.0.113.100' },
    });
    assert.equal(owner.status, 200, owner.body);
  }
});
