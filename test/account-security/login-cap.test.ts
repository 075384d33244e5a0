import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestClock } from '../helpers/test-clock.ts';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, BEHIND_PROXY } from '../helpers/build.ts';
import { DEFAULT_LOGIN_LIMITS, type LoginLimits } from '../../core/auth/login-limiter.ts';
import { NotificationEventEntity } from '../../core/db/entities/notification.ts';
import { UserEntity } from '../../core/db/entities/user.ts';
import { LoginDeviceEntity } from '../../core/db/entities/login.ts';
import { ALICE, enrolTotp, totpCode, cookieFrom } from './helpers.ts';

/**
 * The cap on failed sign-ins per account (docs/account-security.md#the-cap-on-failed-sign-ins): counted in the
 * database, attempts one at a time, a lock for unknown clients only, undone by the cool-down or
 * an admin.
 */

/** The default limits with a slow-down of a millisecond or two, so a hundred serialised attempts take seconds. */
const FAST: LoginLimits = { ...DEFAULT_LOGIN_LIMITS, accountDelayMs: 1, accountMaxDelayMs: 2 };

function signIn(app: FastifyInstance, body: Record<string, unknown>, ip: string, headers: Record<string, string> = {}) {
  return call(app, 'POST', '/api/auth/login', {
    body: { ...ALICE, ...body },
    headers: { 'x-forwarded-for': ip, ...headers },
  });
}

async function aliceApp(
  t: import('node:test').TestContext,
  config: Record<string, unknown> = {},
  clock: TestClock | undefined = undefined,
) {
  const { app } = await build(t, {
    config: { ...BEHIND_PROXY, ...config },
    build: { loginLimits: FAST, ...(clock ? { clock } : {}) },
  });
  const admin = await setupAdmin(app);
  const created = await call(app, 'POST', '/api/users', { token: admin, body: { ...ALICE, role: 'operator' } });
  assert.equal(created.status, 200, created.body);
  return { app, admin, aliceId: created.json.data.id as number };
}

async function userRow(app: FastifyInstance, id: number) {
  return app.diContainer.cradle.orm.em.fork().findOneOrFail(UserEntity, { id });
}

async function auditRows(app: FastifyInstance, admin: string, action: string): Promise<any[]> {
  const res = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { action, limit: '500' } });
  assert.equal(res.status, 200, res.body);
  return res.json.data.items;
}

function assertLocked(res: Awaited<ReturnType<typeof call>>, maxSeconds: number): void {
  assert.deepEqual([res.status, res.json?.code], [429, 'AUTH_ACCOUNT_LOCKED'], res.body);
  const seconds = Number(res.headers['retry-after']);
  assert.ok(seconds >= 1 && seconds <= maxSeconds, `Retry-After ${res.headers['retry-after']} within 1..${maxSeconds}`);
}

test('100 wrong codes sent at once from 100 addresses are tried one at a time; the 101st attempt from a new client is refused, the owner still signs in', {
  timeout: 300_000,
}, async (t) => {
  const { app, admin, aliceId } = await aliceApp(t);
  const first = await signIn(app, {}, '192.0.2.10', { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' });
  assert.equal(first.status, 200, first.body);
  const { secret, recoveryCodes } = await enrolTotp(app, first.json.data.token);
  // The owner's laptop signed in before: it holds a login-device token (cookie and JSON).
  const laptop: string = first.json.data.deviceToken;
  assert.match(laptop, /^bpc_[0-9a-f]{64}$/);
  const cookie = cookieFrom(first.headers, 'backplane_login_device');
  assert.equal(cookie?.value, laptop);
  assert.match(cookie!.attributes, /HttpOnly/);
  assert.match(cookie!.attributes, /Path=\/api\/auth/);

  // Codes that are wrong now and in the steps around it.
  const valid = new Set(await Promise.all([-1, 0, 1].map((s) => totpCode(secret, s))));
  const wrong = Array.from({ length: 120 }, (_, i) => String(100_000 + i * 7919).padStart(6, '0')).filter(
    (c) => !valid.has(c),
  );
  const CAP = app.diContainer.cradle.config.loginLockoutThreshold;
  assert.equal(CAP, 100, 'the default cap');

  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: CAP }, (_, i) =>
      signIn(app, { twoFactorCode: wrong[i] }, `198.18.${Math.floor(i / 200)}.${(i % 200) + 1}`),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  t.diagnostic(`${CAP} parallel wrong codes answered in ${seconds.toFixed(1)} s`);
  assert.deepEqual(
    [...new Set(answers.map((r) => `${r.status} ${r.json.code}`))],
    ['401 AUTH_2FA_INVALID'],
    'every one of the hundred was tried, none refused',
  );

  // Serialised: each attempt read the account's run of failures when it began, and each read a
  // different number, 1 to 100. Two that overlapped would have read the same one.
  const failed = (await auditRows(app, admin, 'login_failed')).filter((r) => r.targetName === ALICE.username);
  const numbers = failed.map((r) => Number(/failure=(\d+)/.exec(r.detail)?.[1])).sort((a, b) => a - b);
  assert.deepEqual(
    numbers,
    Array.from({ length: CAP }, (_, i) => i + 1),
  );
  const row = await userRow(app, aliceId);
  assert.equal(row.failedLoginCount, CAP);
  assert.ok(row.lockedUntil && row.lockedUntil.getTime() > Date.now() + 3500_000, 'locked for the default hour');
  const locks = await auditRows(app, admin, 'account_locked');
  assert.equal(locks.length, 1);
  assert.match(locks[0].detail, /^failures=100, until=/);
  const alerts = await app.diContainer.cradle.orm.em.fork().find(NotificationEventEntity, { type: 'account_attack' });
  assert.equal(alerts.length, 1, 'admins are told once');
  assert.equal(alerts[0]!.subject, `user:${aliceId}`);
  assert.equal(alerts[0]!.severity, 'error');
  assert.match(alerts[0]!.title, /alice locked after 100 failed sign-ins/);

  // The 101st, from a client Alice never signed in on, with the right password and a right code: refused.
  const stranger = await signIn(app, { twoFactorCode: recoveryCodes[0] }, '203.0.113.50');
  assertLocked(stranger, 3600);
  assert.equal(stranger.json.details.retryAfterSeconds, Number(stranger.headers['retry-after']));
  const rejected = await auditRows(app, admin, 'login_rejected');
  assert.ok(rejected.some((r) => r.detail === 'AUTH_ACCOUNT_LOCKED' && r.clientIp === '203.0.113.50'));

  // The owner's laptop, from yet another address, signs in: the attacker cannot lock her out.
  const owner = await signIn(app, { twoFactorCode: recoveryCodes[1], deviceToken: laptop }, '203.0.113.60');
  assert.equal(owner.status, 200, owner.body);
  assert.equal(owner.json.data.deviceToken, undefined, 'its token is renewed, not replaced');
  // A remembered second factor (trusted device) is a trusted client too, and so is the cookie.
  const byCookie = await signIn(app, { twoFactorCode: recoveryCodes[2] }, '203.0.113.61', {
    cookie: `backplane_login_device=${laptop}`,
  });
  assert.equal(byCookie.status, 200, byCookie.body);
  // Her sign-in does not lift the lock for strangers.
  assertLocked(await signIn(app, { twoFactorCode: recoveryCodes[3] }, '203.0.113.51'), 3600);

  // The user list shows the lock; an admin lifts it.
  const list = await call(app, 'GET', '/api/users', { token: admin });
  const shown = list.json.data.find((u: { id: number }) => u.id === aliceId);
  assert.equal(shown.failedLoginCount, CAP);
  assert.ok(Date.parse(shown.lockedUntil) > Date.now());
  const unlocked = await call(app, 'POST', `/api/users/${aliceId}/unlock`, { token: admin });
  assert.equal(unlocked.status, 200, unlocked.body);
  assert.deepEqual([unlocked.json.data.lockedUntil, unlocked.json.data.failedLoginCount], [null, 0]);
  const unlocks = await auditRows(app, admin, 'account_unlocked');
  assert.deepEqual(
    unlocks.map((r) => [r.username, r.targetName, r.detail]),
    [['admin', ALICE.username, 'by admin']],
  );
  const afterUnlock = await signIn(app, { twoFactorCode: recoveryCodes[4] }, '203.0.113.52');
  assert.equal(afterUnlock.status, 200, afterUnlock.body);
  assert.match(afterUnlock.json.data.deviceToken, /^bpc_/, 'a new client gets its own token');
  assert.equal((await call(app, 'POST', '/api/users/424242/unlock', { token: admin })).json.code, 'USER_NOT_FOUND');
});

test('wrong passwords count too; the cool-down ends the lock; a trusted client that keeps failing is no longer trusted', async (t) => {
  // The lock's time is the test's clock: on a loaded machine a real second could pass mid-test.
  const clock = new TestClock();
  const { app, admin, aliceId } = await aliceApp(
    t,
    { loginLockoutThreshold: 3, loginLockoutSeconds: 60, loginDeviceMaxFailures: 2 },
    clock,
  );
  const laptop = await signIn(app, {}, '192.0.2.1');
  assert.equal(laptop.status, 200, laptop.body);
  const device: string = laptop.json.data.deviceToken;

  for (let i = 0; i < 3; i++)
    assert.equal(
      (await signIn(app, { password: `guess-${i}` }, `198.51.100.${i + 1}`)).json.code,
      'AUTH_INVALID_CREDENTIALS',
    );
  assertLocked(await signIn(app, {}, '198.51.100.9'), 60);
  // A password step of a code login (otp/send) is refused to a stranger too.
  const otp = await call(app, 'POST', '/api/auth/otp/send', {
    body: { ...ALICE, channel: 'email' },
    headers: { 'x-forwarded-for': '198.51.100.10' },
  });
  assert.equal(otp.json.code, 'AUTH_ACCOUNT_LOCKED');

  // The trusted client's own failures count against it: at two in a row it is a stranger again.
  for (let i = 0; i < 2; i++)
    assert.equal(
      (await signIn(app, { password: `laptop-typo-${i}`, deviceToken: device }, '192.0.2.1')).json.code,
      'AUTH_INVALID_CREDENTIALS',
    );
  const em = app.diContainer.cradle.orm.em.fork();
  assert.equal(await em.count(LoginDeviceEntity, { userId: aliceId }), 0, 'its token is revoked');
  assertLocked(await signIn(app, { deviceToken: device }, '192.0.2.1'), 60);
  const revoked = await auditRows(app, admin, 'trusted_client_revoked');
  assert.deepEqual(
    revoked.map((r) => r.detail),
    ['login_device, failures=2'],
  );

  // The cool-down (a minute here) ends the lock: the account starts afresh.
  await clock.advance(61_000);
  const after = await signIn(app, {}, '198.51.100.20');
  assert.equal(after.status, 200, after.body);
  const row = await userRow(app, aliceId);
  assert.deepEqual([row.failedLoginCount, row.lockedUntil], [0, null]);
  const ended = await auditRows(app, admin, 'account_unlocked');
  assert.deepEqual(
    ended.map((r) => r.detail),
    ['cool-down over'],
  );
});

test('a whole sign-in clears the run of failures; a password step alone does not', async (t) => {
  const { app, aliceId } = await aliceApp(t, { loginLockoutThreshold: 3 });
  const first = await signIn(app, {}, '192.0.2.1');
  const { secret } = await enrolTotp(app, first.json.data.token);
  const valid = new Set(await Promise.all([-1, 0, 1].map((s) => totpCode(secret, s))));
  const wrongCode = ['123456', '654321', '111111'].find((c) => !valid.has(c))!;

  assert.equal((await signIn(app, { twoFactorCode: wrongCode }, '198.51.100.1')).json.code, 'AUTH_2FA_INVALID');
  assert.equal((await signIn(app, { twoFactorCode: wrongCode }, '198.51.100.2')).json.code, 'AUTH_2FA_INVALID');
  // The right password on its own (the first half of a code login) proves nothing about the code.
  const otp = await call(app, 'POST', '/api/auth/otp/send', {
    body: { ...ALICE, channel: 'email' },
    headers: { 'x-forwarded-for': '198.51.100.3' },
  });
  assert.equal(otp.json.code, 'AUTH_EMAIL_OTP_DISABLED', 'past the password');
  assert.equal((await userRow(app, aliceId)).failedLoginCount, 2, 'the run goes on');
  assert.equal((await signIn(app, { twoFactorCode: await totpCode(secret, 1) }, '198.51.100.4')).status, 200);
  assert.equal((await userRow(app, aliceId)).failedLoginCount, 0, 'a whole sign-in ends it');
});
