import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, apiKeyWithRole } from '../helpers/build.ts';
import { UserEntity } from '../../core/db/entities/user.ts';
import { RecoveryCodeEntity, TrustedDeviceEntity } from '../../core/db/entities/account-security.ts';
import { accountApp, login, enrolTotp, totpCode, passwordLogin, ALICE, cookieFrom } from './helpers.ts';

test('secrets at rest: the TOTP secret is sealed, recovery codes and device tokens are hashes', async (t) => {
  const { app, aliceId, token } = await accountApp(t);
  const { secret, recoveryCodes } = await enrolTotp(app, token);
  const remembered = await login(app, { twoFactorCode: recoveryCodes[0], rememberDevice: true });
  const rows = await app.diContainer.cradle.orm.em
    .fork()
    .getConnection()
    .execute('select totp_secret from users where id = ?', [aliceId]);
  const sealed = String((rows[0] as { totp_secret: string }).totp_secret);
  assert.ok(sealed.length > 40 && !sealed.includes(secret), 'the secret is not stored in the clear');
  const em = app.diContainer.cradle.orm.em.fork();
  for (const row of await em.find(RecoveryCodeEntity, { userId: aliceId })) {
    assert.match(row.codeHash, /^\$argon2id\$/);
    assert.ok(
      recoveryCodes.every(
        (c) => !row.codeHash.includes(c) && !row.codeHash.includes(c.replace(/-/g, '').toLowerCase()),
      ),
    );
  }
  const device = await em.findOneOrFail(TrustedDeviceEntity, { userId: aliceId });
  assert.notEqual(device.tokenHash, remembered.json.data.trustedDeviceToken);
  assert.match(device.tokenHash, /^[0-9a-f]{64}$/);
});

test('a password change, turning off the last factor and regenerating codes revoke what they must', async (t) => {
  const { app, aliceId, token } = await accountApp(t);
  const { secret, recoveryCodes } = await enrolTotp(app, token);
  const remember = async () =>
    (await login(app, { twoFactorCode: recoveryCodes.pop(), rememberDevice: true })).json.data
      .trustedDeviceToken as string;
  const em = () => app.diContainer.cradle.orm.em.fork();

  // A password change: every remembered device stops working, and the browser's cookie is cleared.
  const device = await remember();
  const changed = await call(app, 'PUT', '/api/auth/password', {
    token,
    body: { oldPassword: ALICE.password, newPassword: 'alice-password-2' },
    headers: { cookie: `backplane_trusted_device=${device}` },
  });
  assert.equal(changed.status, 200, changed.body);
  assert.equal(cookieFrom(changed.headers, 'backplane_trusted_device')?.value, '', 'the cookie is cleared');
  assert.equal(await em().count(TrustedDeviceEntity, { userId: aliceId }), 0);
  const password = 'alice-password-2';
  assert.equal((await login(app, { password, trustedDeviceToken: device })).json.code, 'AUTH_2FA_REQUIRED');

  // New recovery codes: password and a TOTP code; the old ones stop working.
  const regenerated = await call(app, 'POST', '/api/auth/2fa/recovery-codes', {
    token,
    body: { currentPassword: password, code: await totpCode(secret, 1) },
  });
  assert.equal(regenerated.status, 200, regenerated.body);
  assert.equal(regenerated.json.data.recoveryCodes.length, 10);
  assert.equal(
    (await login(app, { password, twoFactorCode: recoveryCodes[0] })).json.code,
    'AUTH_2FA_INVALID',
    'old codes are gone',
  );
  const fresh: string[] = regenerated.json.data.recoveryCodes;

  // Turning TOTP off (the only factor): password and a code; devices and pending codes go, the password is enough again.
  const device2 = (await login(app, { password, twoFactorCode: fresh[0], rememberDevice: true })).json.data
    .trustedDeviceToken;
  assert.ok(device2);
  const badCode = await call(app, 'DELETE', '/api/auth/2fa', {
    token,
    body: { currentPassword: password, code: '12345x' },
  });
  assert.deepEqual([badCode.status, badCode.json.code], [400, 'AUTH_2FA_CODE_WRONG']);
  await new Promise((r) => setTimeout(r, Math.max(0, 30_000 - (Date.now() % 30_000)) + 50));
  // Steps N (enabling) and N+1 (new codes) are used up: wait for N+1 to begin, then N+2 is in reach.
  const off = await call(app, 'DELETE', '/api/auth/2fa', {
    token,
    body: { currentPassword: password, code: await totpCode(secret, 1) },
  });
  assert.equal(off.status, 200, off.body);
  assert.deepEqual(
    [
      off.json.data.twoFactorEnabled,
      off.json.data.mfaEnabled,
      off.json.data.twoFactorRecoveryCodesRemaining,
      off.json.data.trustedDeviceCount,
    ],
    [false, false, 0, 0],
  );
  const user = await em().findOneOrFail(UserEntity, { id: aliceId }, { populate: ['totpSecret'] });
  assert.equal(user.totpSecret, null);
  assert.equal(await em().count(RecoveryCodeEntity, { userId: aliceId }), 0);
  assert.equal((await login(app, { password })).status, 200);
});

test('account-security routes refuse API keys; every route needs a session', async (t) => {
  const { app, admin } = await accountApp(t);
  const { key } = await apiKeyWithRole(app, admin, 'admin');
  for (const [method, url] of [
    ['POST', '/api/auth/2fa/setup'],
    ['POST', '/api/auth/2fa/enable'],
    ['DELETE', '/api/auth/2fa'],
    ['POST', '/api/auth/2fa/recovery-codes'],
    ['PUT', '/api/auth/otp/config'],
    ['POST', '/api/auth/webauthn/register/options'],
    ['POST', '/api/auth/webauthn/register/finish'],
    ['GET', '/api/auth/webauthn/credentials'],
    ['DELETE', '/api/auth/webauthn/credentials/1'],
    ['GET', '/api/auth/trusted-devices'],
    ['DELETE', '/api/auth/trusted-devices/1'],
    ['POST', '/api/users/1/2fa/reset'],
  ] as const) {
    const byKey = await call(app, method, url, { apiKey: key, body: {} });
    assert.deepEqual(
      [byKey.status, byKey.json.code],
      [403, 'AUTH_INTERACTIVE_ONLY'],
      `${method} ${url} with an API key`,
    );
    assert.equal((await call(app, method, url, { body: {} })).status, 401, `${method} ${url} without credentials`);
  }
});

test('mfa_required_for_admins: a grace period with full access, then a session that opens the enrolment routes only', async (t) => {
  const { app, admin, token } = await accountApp(t);
  assert.equal(
    (await call(app, 'PUT', '/api/settings', { token: admin, body: { mfa_required_for_admins: 'true' } })).status,
    200,
  );
  const adminLogin = () =>
    call(app, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-password-1' } });

  const inGrace = await adminLogin();
  assert.equal(inGrace.status, 200, inGrace.body);
  assert.equal(inGrace.json.data.mfaEnrollmentRequired, false);
  const deadline = Date.parse(inGrace.json.data.mfaEnrollmentDeadline);
  assert.ok(Math.abs(deadline - (Date.now() + 7 * 86_400_000)) < 60_000, 'seven days by default');
  assert.equal((await call(app, 'GET', '/api/users', { token: inGrace.json.data.token })).status, 200);
  assert.equal((await passwordLogin(app)).length > 0, true, 'operators are not concerned');
  assert.equal((await login(app)).json.data.mfaEnrollmentDeadline, undefined);
  void token;

  assert.equal(
    (await call(app, 'PUT', '/api/settings', { token: admin, body: { mfa_enrollment_grace_days: '0' } })).status,
    200,
  );
  const late = await adminLogin();
  assert.equal(late.status, 200, late.body);
  assert.equal(late.json.data.mfaEnrollmentRequired, true);
  const restricted = late.json.data.token;
  const blocked = await call(app, 'GET', '/api/users', { token: restricted });
  assert.deepEqual([blocked.status, blocked.json.code], [403, 'AUTH_MFA_ENROLLMENT_REQUIRED']);
  assert.equal((await call(app, 'GET', '/api/auth/profile', { token: restricted })).status, 200);
  const { secret } = await enrolTotp(app, restricted, 'admin-password-1');
  const enrolled = await call(app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'admin-password-1', twoFactorCode: await totpCode(secret, 1) },
  });
  assert.equal(enrolled.status, 200, enrolled.body);
  assert.equal(enrolled.json.data.mfaEnrollmentDeadline, undefined);
  assert.equal((await call(app, 'GET', '/api/users', { token: enrolled.json.data.token })).status, 200);
});
