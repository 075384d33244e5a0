import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { build, call, setupAdmin, userWithRole, ADMIN, BEHIND_PROXY } from '../helpers/build.ts';
import { loadMasterKey, deriveKey } from '../../core/security/master-key.ts';
import { LoginLimiter, DEFAULT_LOGIN_LIMITS, type LoginLimits } from '../../core/auth/login-limiter.ts';

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
const SMALL_LIMITS: LoginLimits = {
  perIpPoints: 3,
  perIpSeconds: 60,
  perAccountIpFailures: 2,
  perAccountIpSeconds: 60,
  accountFreeFailures: 1,
  accountSeconds: 60,
  accountDelayMs: 1,
  accountMaxDelayMs: 4,
};
/** A budget per IP wide enough that only the per-account rules are exercised. */
const ACCOUNT_LIMITS: LoginLimits = { ...SMALL_LIMITS, perIpPoints: 100 };

function login(app: FastifyInstance, username: string, password: string, ip?: string) {
  return call(app, 'POST', '/api/auth/login', {
    body: { username, password },
    headers: ip ? { 'x-forwarded-for': ip } : {},
  });
}

function profile(app: FastifyInstance, token: string) {
  return call(app, 'GET', '/api/auth/profile', { token });
}

async function authAudit(app: FastifyInstance, token: string): Promise<any[]> {
  const res = await call(app, 'GET', '/api/audit-logs', { token, query: { category: 'auth', limit: '500' } });
  assert.equal(res.status, 200, res.body);
  return res.json.data.items;
}

function assertRateLimited(res: Awaited<ReturnType<typeof call>>, maxSeconds: number): void {
  assert.equal(res.status, 429, res.body);
  assert.equal(res.json.code, 'AUTH_RATE_LIMITED');
  const retryAfter = res.headers['retry-after'];
  assert.equal(typeof retryAfter, 'string', 'Retry-After header is present');
  assert.match(retryAfter as string, /^\d+$/, 'Retry-After is a whole number of seconds');
  const seconds = Number(retryAfter);
  assert.ok(seconds >= 1 && seconds <= maxSeconds, `Retry-After ${seconds} within 1..${maxSeconds}`);
}

/** Signs a JWT with the installation's real session key, to build expired or otherwise off tokens. */
async function forge(
  dataDir: string,
  secretKey: string | undefined,
  claims: { sub: string; tv: unknown; role?: string; iss?: string; exp: number; jti?: string },
): Promise<string> {
  const key = new Uint8Array(deriveKey(loadMasterKey(dataDir, secretKey), 'jwt'));
  const jwt = new SignJWT({ role: claims.role ?? 'admin', tv: claims.tv });
  if (claims.jti) jwt.setJti(claims.jti);
  return jwt
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(claims.iss ?? 'backplane')
    .setIssuedAt()
    .setExpirationTime(claims.exp)
    .sign(key);
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

test('setup: status flips, the first admin is created once and gets a session', async (t) => {
  const { app } = await build(t);

  const before = await call(app, 'GET', '/api/auth/setup/status');
  assert.equal(before.status, 200);
  assert.deepEqual(before.json, { code: 'OK', message: 'success', data: { initialized: false } });

  const started = Date.now();
  const res = await call(app, 'POST', '/api/auth/setup', {
    body: { username: 'root', password: 'root-password-1', displayName: 'The Root' },
  });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.code, 'OK');
  assert.equal(res.json.message, 'success');
  const data = res.json.data;
  assert.deepEqual(Object.keys(data).sort(), ['deviceToken', 'expiresAt', 'token', 'user']);
  assert.match(data.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'a compact JWT');
  assert.deepEqual(Object.keys(data.user).sort(), USER_VIEW_KEYS);
  assert.equal(data.user.username, 'root');
  assert.equal(data.user.displayName, 'The Root');
  assert.equal(data.user.role, 'admin');
  assert.equal(data.user.disabled, false);
  assert.ok(Number.isInteger(data.user.id) && data.user.id > 0);
  const expiresAt = Date.parse(data.expiresAt);
  const day = 24 * 3600 * 1000;
  assert.ok(
    expiresAt >= started + day - 5_000 && expiresAt <= Date.now() + day + 5_000,
    `expiresAt ${data.expiresAt} is about 24 h ahead`,
  );
  assert.ok(
    !res.body.includes('root-password-1') && !res.body.includes('$argon2'),
    'no password or hash in the response',
  );

  const me = await profile(app, data.token);
  assert.equal(me.status, 200, me.body);
  assert.equal(me.json.data.username, 'root');

  const after = await call(app, 'GET', '/api/auth/setup/status');
  assert.deepEqual(after.json.data, { initialized: true });

  const again = await call(app, 'POST', '/api/auth/setup', {
    body: { username: 'intruder', password: 'intruder-password-1' },
  });
  assert.equal(again.status, 409, again.body);
  assert.equal(again.json.code, 'AUTH_SETUP_DISABLED');
  assert.equal(typeof again.json.message, 'string');

  const sameName = await call(app, 'POST', '/api/auth/setup', {
    body: { username: 'root', password: 'other-password-1' },
  });
  assert.equal(sameName.status, 409);
  assert.equal(sameName.json.code, 'AUTH_SETUP_DISABLED');

  const users = await call(app, 'GET', '/api/users', { token: data.token });
  assert.equal(users.headers['x-total-count'], '1');
  assert.deepEqual(
    users.json.data.map((u: any) => u.username),
    ['root'],
  );

  // The original password still works: the refused setups changed nothing.
  assert.equal((await login(app, 'root', 'root-password-1')).status, 200);
  assert.equal((await login(app, 'root', 'other-password-1')).status, 401);

  const audit = await authAudit(app, data.token);
  const setupRow = audit.find((r) => r.action === 'setup');
  assert.ok(setupRow, 'the successful setup is audited');
  assert.equal(setupRow.username, 'root');
  assert.equal(setupRow.targetId, String(data.user.id));
  assert.equal(setupRow.clientIp, '127.0.0.1');
  const refused = audit.filter((r) => r.action === 'setup_failed');
  assert.deepEqual(refused.map((r) => r.targetName).sort(), ['intruder', 'root'], 'both refused setups are audited');
  assert.ok(refused.every((r) => r.detail === 'AUTH_SETUP_DISABLED'));
  assert.ok(!JSON.stringify(audit).includes('password-1'), 'no password reaches the audit log');
});

test('setup: invalid input is refused and creates nothing', async (t) => {
  const { app } = await build(t);
  const cases: unknown[] = [
    {},
    { username: 'root' },
    { password: 'root-password-1' },
    { username: 'root', password: 'short' },
    { username: 'ro', password: 'root-password-1' },
    { username: 'bad name', password: 'root-password-1' },
    { username: 'x'.repeat(65), password: 'root-password-1' },
    { username: 'root', password: 'p'.repeat(129) },
    { username: 'root', password: 'root-password-1', displayName: '' },
    { username: 'root', password: 'root-password-1', displayName: 'a\u0000b' },
    { username: { $ne: null }, password: 'root-password-1' },
  ];
  for (const body of cases) {
    const res = await call(app, 'POST', '/api/auth/setup', { body });
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.equal(res.json.code, 'INVALID_INPUT');
    assert.ok(Array.isArray(res.json.details) && res.json.details.length > 0, 'details explain the problem');
  }
  const status = await call(app, 'GET', '/api/auth/setup/status');
  assert.equal(status.json.data.initialized, false);
});

test('setup: concurrent calls create exactly one administrator', async (t) => {
  const { app } = await build(t);
  const N = 8;
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      call(app, 'POST', '/api/auth/setup', { body: { username: `racer-${i}`, password: `racer-password-${i}` } }),
    ),
  );

  const winners = results.filter((r) => r.status === 200);
  const losers = results.filter((r) => r.status !== 200);
  assert.equal(winners.length, 1, `exactly one setup wins: ${results.map((r) => r.status).join(',')}`);
  for (const loser of losers) {
    assert.equal(loser.status, 409, loser.body);
    assert.equal(loser.json.code, 'AUTH_SETUP_DISABLED');
  }
  const winner = winners[0]!.json.data;
  const users = await call(app, 'GET', '/api/users', { token: winner.token });
  assert.equal(users.status, 200);
  assert.equal(users.headers['x-total-count'], '1');
  assert.equal(users.json.data.length, 1);
  assert.equal(users.json.data[0].username, winner.user.username);
  assert.equal(users.json.data[0].role, 'admin');
  assert.deepEqual((await call(app, 'GET', '/api/auth/setup/status')).json.data, { initialized: true });
});

test('login: success returns a session; unknown user and wrong password fail alike', async (t) => {
  const { app } = await build(t);
  await setupAdmin(app);

  const ok = await login(app, ADMIN.username, ADMIN.password);
  assert.equal(ok.status, 200, ok.body);
  assert.deepEqual(Object.keys(ok.json.data).sort(), ['deviceToken', 'expiresAt', 'token', 'user']);
  assert.equal(ok.json.data.user.username, ADMIN.username);
  assert.equal(ok.json.data.user.role, 'admin');
  assert.ok(Date.parse(ok.json.data.expiresAt) > Date.now());
  assert.ok(!ok.body.includes(ADMIN.password) && !ok.body.includes('$argon2'));
  const token: string = ok.json.data.token;
  assert.equal((await profile(app, token)).status, 200);

  const unknown = await login(app, 'nobody-here', ADMIN.password);
  const wrong = await login(app, ADMIN.username, 'not-the-password');
  for (const res of [unknown, wrong]) {
    assert.equal(res.status, 401, res.body);
    assert.equal(res.json.code, 'AUTH_INVALID_CREDENTIALS');
    assert.equal(res.json.data, undefined);
  }
  assert.equal(unknown.json.message, wrong.json.message, 'the two failures cannot be told apart');
  assert.equal(unknown.body, wrong.body);

  for (const body of [
    {},
    { username: ADMIN.username },
    { password: ADMIN.password },
    { username: '', password: 'x' },
    { username: ADMIN.username, password: 'p'.repeat(100_000) },
    { username: ['admin', 'x'], password: ADMIN.password },
  ]) {
    const res = await call(app, 'POST', '/api/auth/login', { body });
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.body.slice(0, 200)}`);
    assert.equal(res.json.code, 'INVALID_INPUT');
  }
  const nul = await login(app, 'adm\u0000in', ADMIN.password);
  assert.ok(nul.status === 400 || nul.status === 401, `a NUL in the username is a client error, got ${nul.status}`);

  const audit = await authAudit(app, token);
  const success = audit.filter((r) => r.action === 'login_success');
  assert.equal(success.length, 1);
  assert.equal(success[0].username, ADMIN.username);
  assert.equal(success[0].targetId, String(ok.json.data.user.id));
  assert.equal(success[0].clientIp, '127.0.0.1');
  const failed = audit.filter((r) => r.action === 'login_failed');
  assert.deepEqual(failed.map((r) => r.targetName).sort(), [ADMIN.username, 'nobody-here']);
  // An existing account's failure also says which in its run of failures it was.
  assert.deepEqual(failed.map((r) => r.detail).sort(), [
    'AUTH_INVALID_CREDENTIALS',
    'AUTH_INVALID_CREDENTIALS, failure=1',
  ]);
  assert.ok(
    !JSON.stringify(audit).includes('not-the-password') && !JSON.stringify(audit).includes(ADMIN.password),
    'passwords never reach the audit log',
  );
});

test('login: a disabled user learns so only with the right password', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const { id } = await userWithRole(app, admin, 'viewer', 'dana');
  const disable = await call(app, 'PUT', `/api/users/${id}`, { token: admin, body: { disabled: true } });
  assert.equal(disable.status, 200, disable.body);

  const wrong = await login(app, 'dana', 'wrong-password');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.json.code, 'AUTH_INVALID_CREDENTIALS');

  const right = await login(app, 'dana', 'viewer-password-1');
  assert.equal(right.status, 401);
  assert.equal(right.json.code, 'AUTH_USER_DISABLED');

  assert.equal((await call(app, 'PUT', `/api/users/${id}`, { token: admin, body: { disabled: false } })).status, 200);
  const back = await login(app, 'dana', 'viewer-password-1');
  assert.equal(back.status, 200, back.body);

  const audit = await authAudit(app, admin);
  const disabledRow = audit.find((r) => r.action === 'login_failed' && r.detail === 'AUTH_USER_DISABLED');
  assert.ok(disabledRow, 'the refused login of a disabled account is audited');
  assert.equal(disabledRow.targetName, 'dana');
});

test('rate limit per IP: 429 with Retry-After once the IP is out of attempts; other IPs are unaffected', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY, build: { loginLimits: SMALL_LIMITS } });
  const admin = await setupAdmin(app);
  const ip = '203.0.113.7';

  // Different unknown accounts, so only the per-IP budget is spent.
  for (let i = 0; i < SMALL_LIMITS.perIpPoints; i++) {
    const res = await login(app, `ghost-${i}`, 'whatever-password', ip);
    assert.equal(res.status, 401, `attempt ${i + 1} is within the budget`);
  }
  const limited = await login(app, 'ghost-x', 'whatever-password', ip);
  assertRateLimited(limited, SMALL_LIMITS.perIpSeconds);
  assert.equal(limited.json.details?.retryAfterSeconds, Number(limited.headers['retry-after']));

  // Even the right password is refused from the exhausted IP...
  assertRateLimited(await login(app, ADMIN.username, ADMIN.password, ip), SMALL_LIMITS.perIpSeconds);
  // ...while another client address logs in normally.
  const elsewhere = await login(app, ADMIN.username, ADMIN.password, '203.0.113.8');
  assert.equal(elsewhere.status, 200, elsewhere.body);

  // Those refusals did not count against the admin account from a fresh address: two real failures are still allowed.
  const fresh = '198.51.100.1';
  assert.equal((await login(app, ADMIN.username, 'wrong-password', fresh)).status, 401);
  assert.equal((await login(app, ADMIN.username, 'wrong-password', fresh)).status, 401);
  assertRateLimited(await login(app, ADMIN.username, 'wrong-password', fresh), SMALL_LIMITS.perAccountIpSeconds);

  const audit = await authAudit(app, admin);
  const rejected = audit.filter((r) => r.action === 'login_rejected');
  assert.ok(rejected.length >= 3, 'rate-limited logins are audited');
  assert.ok(rejected.every((r) => r.detail === 'AUTH_RATE_LIMITED'));
  assert.ok(
    rejected.some((r) => r.clientIp === ip),
    'the audit records the forwarded client address',
  );
});

test('rate limit per account and IP: failures lock the account for that address only; the right password from another address logs in', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY, build: { loginLimits: ACCOUNT_LIMITS } });
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/users', {
    token: admin,
    body: { username: 'other', password: 'other-password-1' },
  });
  assert.equal(created.status, 200);

  const attacker = '192.0.2.1';
  assert.equal((await login(app, ADMIN.username, 'guess-one', attacker)).json.code, 'AUTH_INVALID_CREDENTIALS');
  assert.equal((await login(app, ADMIN.username, 'guess-two', attacker)).json.code, 'AUTH_INVALID_CREDENTIALS');
  // The attacker's address is locked out of this account, right password included...
  assertRateLimited(await login(app, ADMIN.username, ADMIN.password, attacker), SMALL_LIMITS.perAccountIpSeconds);
  // ...and changing the case does not open a new budget.
  assertRateLimited(
    await login(app, ADMIN.username.toUpperCase(), 'guess-three', attacker),
    SMALL_LIMITS.perAccountIpSeconds,
  );
  // Another account from the attacker's address is fine.
  const other = await login(app, 'other', 'other-password-1', attacker);
  assert.equal(other.status, 200, other.body);
  // The owner, elsewhere, is not locked out.
  const owner = await login(app, ADMIN.username, ADMIN.password, '192.0.2.200');
  assert.equal(owner.status, 200, owner.body);
});

test('failures against one account from many addresses slow it down, never lock the owner out', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY, build: { loginLimits: ACCOUNT_LIMITS } });
  await setupAdmin(app);
  // Far more failures than any per-address budget, each from a fresh address.
  for (let i = 0; i < 12; i++) {
    const res = await login(app, ADMIN.username, `distributed-guess-${i}`, `198.18.0.${i + 1}`);
    assert.equal(res.json.code, 'AUTH_INVALID_CREDENTIALS', `guess ${i + 1} is answered (slowly), not refused`);
  }
  const owner = await login(app, ADMIN.username, ADMIN.password, '198.18.1.1');
  assert.equal(owner.status, 200, owner.body);
});

test('the account-wide slow-down grows with each failure and stops at its maximum', () => {
  const limiter = new LoginLimiter({
    ...DEFAULT_LOGIN_LIMITS,
    accountFreeFailures: 2,
    accountDelayMs: 100,
    accountMaxDelayMs: 1000,
  });
  const delays = [0, 1, 2, 3, 4, 5, 6, 50, 10_000].map((n) => limiter.delayAfter(n));
  assert.deepEqual(delays, [0, 0, 100, 200, 400, 800, 1000, 1000, 1000]);
  const defaults = new LoginLimiter();
  assert.equal(defaults.delayAfter(DEFAULT_LOGIN_LIMITS.accountFreeFailures - 1), 0, 'a few typos cost nothing');
  assert.equal(defaults.delayAfter(1_000_000), DEFAULT_LOGIN_LIMITS.accountMaxDelayMs);
});

test('rate limit per account and IP: a burst of concurrent guesses cannot outrun the failure budget', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY, build: { loginLimits: ACCOUNT_LIMITS } });
  await setupAdmin(app);
  const ip = '10.9.0.1';
  const burst = await Promise.all(
    Array.from({ length: 8 }, (_, i) => login(app, ADMIN.username, `concurrent-guess-${i}`, ip)),
  );
  const codes = burst.map((r) => r.json.code);
  assert.equal(
    codes.filter((c) => c === 'AUTH_INVALID_CREDENTIALS').length,
    SMALL_LIMITS.perAccountIpFailures,
    `only the budget is tried: ${codes.join(',')}`,
  );
  for (const res of burst.filter((r) => r.json.code !== 'AUTH_INVALID_CREDENTIALS'))
    assertRateLimited(res, SMALL_LIMITS.perAccountIpSeconds);
  assertRateLimited(await login(app, ADMIN.username, ADMIN.password, ip), SMALL_LIMITS.perAccountIpSeconds);
});

test('rate limit per account and IP: a successful login clears the failure count', async (t) => {
  const { app } = await build(t, { config: BEHIND_PROXY, build: { loginLimits: ACCOUNT_LIMITS } });
  await setupAdmin(app);
  const ip = '10.1.0.1';
  assert.equal((await login(app, ADMIN.username, 'wrong-1', ip)).status, 401);
  assert.equal((await login(app, ADMIN.username, ADMIN.password, ip)).status, 200);
  // Without the reset, the earlier failure would leave room for only one more.
  assert.equal((await login(app, ADMIN.username, 'wrong-2', ip)).status, 401);
  assert.equal((await login(app, ADMIN.username, 'wrong-3', ip)).status, 401);
  assertRateLimited(await login(app, ADMIN.username, ADMIN.password, ip), SMALL_LIMITS.perAccountIpSeconds);
});

test('by default X-Forwarded-For does not change the address the limiter counts', async (t) => {
  const { app } = await build(t, { build: { loginLimits: SMALL_LIMITS } });
  await setupAdmin(app); // counts as one attempt from 127.0.0.1
  for (let i = 1; i < SMALL_LIMITS.perIpPoints; i++) {
    assert.equal((await login(app, `ghost-${i}`, 'whatever-password', `203.0.113.${i}`)).status, 401);
  }
  // Every attempt came from 127.0.0.1 whatever the header claimed: a new claimed address opens no new budget.
  assertRateLimited(await login(app, 'ghost-x', 'whatever-password', '203.0.113.99'), SMALL_LIMITS.perIpSeconds);
});

test("changing the password: wrong old password refused; other sessions revoked; the caller's session goes on", async (t) => {
  const { app } = await build(t);
  const setupToken = await setupAdmin(app);
  const second = await login(app, ADMIN.username, ADMIN.password);
  const otherSession: string = second.json.data.token;
  const newPassword = 'brand-new-password-2';

  const wrongOld = await call(app, 'PUT', '/api/auth/password', {
    token: setupToken,
    body: { oldPassword: 'not-it-at-all', newPassword },
  });
  assert.equal(wrongOld.status, 400, wrongOld.body);
  assert.equal(wrongOld.json.code, 'AUTH_WRONG_PASSWORD');
  const tooShort = await call(app, 'PUT', '/api/auth/password', {
    token: setupToken,
    body: { oldPassword: ADMIN.password, newPassword: 'short' },
  });
  assert.equal(tooShort.status, 400);
  assert.equal(tooShort.json.code, 'INVALID_INPUT');
  const missing = await call(app, 'PUT', '/api/auth/password', { token: setupToken, body: { newPassword } });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'INVALID_INPUT');
  assert.equal((await profile(app, setupToken)).status, 200, 'refused changes revoke nothing');

  const changed = await call(app, 'PUT', '/api/auth/password', {
    token: setupToken,
    body: { oldPassword: ADMIN.password, newPassword },
  });
  assert.equal(changed.status, 200, changed.body);
  assert.deepEqual(
    changed.json.data,
    { changed: true },
    "the reference's answer: no new token, the caller keeps theirs",
  );

  const other = await profile(app, otherSession);
  assert.equal(other.status, 401, 'another session from before the change is revoked');
  assert.equal(other.json.code, 'AUTH_UNAUTHORIZED');
  const me = await profile(app, setupToken);
  assert.equal(me.status, 200, 'the session that made the change goes on');
  assert.equal(me.json.data.username, ADMIN.username);
  assert.equal((await call(app, 'GET', '/api/users', { token: setupToken })).status, 200);

  assert.equal((await login(app, ADMIN.username, ADMIN.password)).json.code, 'AUTH_INVALID_CREDENTIALS');
  const fresh = await login(app, ADMIN.username, newPassword);
  assert.equal(fresh.status, 200);

  // A second change from a new session closes the one kept by the first.
  const again = await call(app, 'PUT', '/api/auth/password', {
    token: fresh.json.data.token,
    body: { oldPassword: newPassword, newPassword: 'third-password-3' },
  });
  assert.equal(again.status, 200, again.body);
  assert.equal(
    (await profile(app, setupToken)).status,
    401,
    'the session kept by the first change is closed by the second',
  );
  assert.equal((await profile(app, fresh.json.data.token)).status, 200);

  const audit = await authAudit(app, fresh.json.data.token);
  const row = audit.find((r) => r.action === 'change_password');
  assert.ok(row, 'the password change is audited');
  assert.equal(row.username, ADMIN.username);
  assert.ok(!JSON.stringify(audit).includes(newPassword));
});

test('a session kept by a password change is still closed by a later revocation', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const op = await userWithRole(app, admin, 'operator', 'otto');
  const changed = await call(app, 'PUT', '/api/auth/password', {
    token: op.token,
    body: { oldPassword: 'operator-password-1', newPassword: 'otto-password-2' },
  });
  assert.equal(changed.status, 200, changed.body);
  assert.equal((await profile(app, op.token)).status, 200);
  assert.equal((await call(app, 'PUT', `/api/users/${op.id}`, { token: admin, body: { role: 'viewer' } })).status, 200);
  assert.equal((await profile(app, op.token)).status, 401, 'a role change closes the kept session too');
});

test("an admin changing role, enabled state or password revokes the user's sessions; other edits do not", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const op = await userWithRole(app, admin, 'operator', 'olga');
  const update = (body: object) => call(app, 'PUT', `/api/users/${op.id}`, { token: admin, body });
  const relogin = async (password = 'operator-password-1') => {
    const res = await login(app, 'olga', password);
    assert.equal(res.status, 200, res.body);
    return res.json.data.token as string;
  };

  assert.equal((await update({ displayName: 'Olga O.', email: 'olga@example.com' })).status, 200);
  assert.equal((await profile(app, op.token)).status, 200, 'a cosmetic edit keeps sessions');
  assert.equal((await update({ role: 'operator' })).status, 200);
  assert.equal((await profile(app, op.token)).status, 200, 'setting the same role is no change');

  assert.equal((await update({ role: 'viewer' })).status, 200);
  assert.equal((await profile(app, op.token)).status, 401, 'a role change revokes');
  let token = await relogin();
  const me = await profile(app, token);
  assert.equal(me.json.data.role, 'viewer');
  assert.equal((await call(app, 'GET', '/api/users', { token })).status, 403, 'the new session carries the new role');

  assert.equal((await update({ disabled: true })).status, 200);
  const disabled = await profile(app, token);
  assert.equal(disabled.status, 401, 'disabling revokes');
  assert.equal(disabled.json.code, 'AUTH_UNAUTHORIZED');
  assert.equal((await update({ disabled: false })).status, 200);
  assert.equal((await profile(app, token)).status, 401, 're-enabling does not revive the old session');
  token = await relogin();

  assert.equal((await update({ password: 'reset-by-admin-1' })).status, 200);
  assert.equal((await profile(app, token)).status, 401, 'an admin password reset revokes');
  token = await relogin('reset-by-admin-1');

  assert.equal((await call(app, 'DELETE', `/api/users/${op.id}`, { token: admin })).status, 200);
  assert.equal((await profile(app, token)).status, 401, "a deleted user's session is gone");
});

test('profile returns the current user without secrets; logout acknowledges', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer', 'vera');

  const me = await profile(app, viewer.token);
  assert.equal(me.status, 200);
  assert.deepEqual(Object.keys(me.json.data).sort(), USER_VIEW_KEYS);
  assert.equal(me.json.data.id, viewer.id);
  assert.equal(me.json.data.username, 'vera');
  assert.equal(me.json.data.role, 'viewer');
  assert.ok(!/password|hash|tokenVersion/i.test(me.body), me.body);
  assert.ok(!me.body.includes('$argon2'));

  const out = await call(app, 'POST', '/api/auth/logout', { token: viewer.token });
  assert.equal(out.status, 200);
  assert.deepEqual(out.json, { code: 'OK', message: 'success', data: { loggedOut: true } });
  assert.equal((await call(app, 'POST', '/api/auth/logout')).status, 401, 'logout needs a session');

  const audit = await authAudit(app, admin);
  const row = audit.find((r) => r.action === 'logout');
  assert.ok(row);
  assert.equal(row.username, 'vera');
  assert.equal(row.userId, viewer.id);
});

test('tampered, forged, expired and garbage JWTs get 401', async (t) => {
  const { app, dataDir, config } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer', 'vic');
  const now = Math.floor(Date.now() / 1000);
  // The viewer's real session: a forged token names it, so that each one differs from a good token in one way only.
  const jti = JSON.parse(Buffer.from(viewer.token.split('.')[1]!, 'base64url').toString()).jti as string;

  // The forging helper is right: a well-formed token with the real key is accepted...
  const control = await forge(dataDir, config.secretKey, {
    sub: String(viewer.id),
    tv: 1,
    role: 'viewer',
    exp: now + 600,
    jti,
  });
  assert.equal((await profile(app, control)).status, 200, 'control token accepted');

  const [header, payload, signature] = viewer.token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  const flip = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
  const bad: Record<string, string> = {
    expired: await forge(dataDir, config.secretKey, {
      sub: String(viewer.id),
      tv: 1,
      role: 'viewer',
      exp: now - 60,
      jti,
    }),
    wrongIssuer: await forge(dataDir, config.secretKey, {
      sub: String(viewer.id),
      tv: 1,
      iss: 'someone-else',
      exp: now + 600,
      jti,
    }),
    staleVersion: await forge(dataDir, config.secretKey, { sub: String(viewer.id), tv: 0, exp: now + 600, jti }),
    futureVersion: await forge(dataDir, config.secretKey, { sub: String(viewer.id), tv: 2, exp: now + 600, jti }),
    versionAsString: await forge(dataDir, config.secretKey, { sub: String(viewer.id), tv: '1', exp: now + 600, jti }),
    unknownUser: await forge(dataDir, config.secretKey, { sub: '424242', tv: 1, exp: now + 600, jti }),
    nonNumericSubject: await forge(dataDir, config.secretKey, { sub: 'admin', tv: 1, exp: now + 600, jti }),
    foreignKey: await new SignJWT({ role: 'admin', tv: 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setIssuer('backplane')
      .setExpirationTime(now + 600)
      .sign(new Uint8Array(32).fill(7)),
    // The viewer's payload re-labelled as the admin, signature kept.
    tamperedSubject: `${header}.${b64url({ ...claims, sub: '1', role: 'admin' })}.${signature}`,
    tamperedSignature: `${header}.${payload}.${flip(signature)}`,
    algNone: `${b64url({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    noSignature: `${header}.${payload}`,
    // Sessions are rows: a token naming no session, or none at all, opens nothing.
    noSession: await forge(dataDir, config.secretKey, {
      sub: String(viewer.id),
      tv: 1,
      role: 'viewer',
      exp: now + 600,
    }),
    unknownSession: await forge(dataDir, config.secretKey, {
      sub: String(viewer.id),
      tv: 1,
      role: 'viewer',
      exp: now + 600,
      jti: 'AAAAAAAAAAAAAAAAAAAAAA',
    }),
    garbage: 'not-a-jwt',
    dots: 'a.b.c',
  };
  for (const [name, token] of Object.entries(bad)) {
    const res = await profile(app, token);
    assert.equal(res.status, 401, `${name}: ${res.body}`);
    assert.equal(res.json.code, 'AUTH_UNAUTHORIZED', name);
  }
  for (const authorization of [
    `Basic ${viewer.token}`,
    `Bearer`,
    `Bearer ${viewer.token} extra`,
    `${viewer.token}`,
    '',
  ]) {
    const res = await call(app, 'GET', '/api/auth/profile', { headers: { authorization } });
    assert.equal(res.status, 401, `Authorization: ${authorization.slice(0, 20)}`);
  }
  // The tampered admin token must not open admin routes either.
  assert.equal((await call(app, 'GET', '/api/users', { token: bad.tamperedSubject! })).status, 401);
  // And the genuine token still works after all that.
  assert.equal((await profile(app, viewer.token)).status, 200);
});
