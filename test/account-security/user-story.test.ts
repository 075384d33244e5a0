import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call } from '../helpers/build.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';
import { PasskeyEntity, RecoveryCodeEntity, TrustedDeviceEntity } from '../../core/db/entities/account-security.ts';
import { accountApp, login, totpCode, ORIGIN, ALICE, cookieFrom } from './helpers.ts';

/**
 * The issue's story, end to end through the real routes: Alice enables TOTP, logs in with a
 * code, once with a recovery code, from a remembered device without a code, registers a passkey
 * and logs in with it, loses every factor and is reset by an admin.
 */
test('a user enables TOTP, uses a code, a recovery code, a remembered device and a passkey, then is reset by an admin', async (t) => {
  const { app, admin, aliceId, token } = await accountApp(t);
  const profile = async () => (await call(app, 'GET', '/api/auth/profile', { token })).json.data;

  // --- TOTP enrolment: the secret, its otpauth URI and a QR code; enabling needs a valid code.
  const setup = await call(app, 'POST', '/api/auth/2fa/setup', { token, body: { currentPassword: ALICE.password } });
  assert.equal(setup.status, 200, setup.body);
  const { secret, otpAuthUrl, qrCodeDataUrl } = setup.json.data;
  assert.match(secret, /^[A-Z2-7]{32}$/, '20 random bytes in base32');
  assert.match(otpAuthUrl, /^otpauth:\/\/totp\/Backplane:alice\?/);
  assert.ok(otpAuthUrl.includes(`secret=${secret}`));
  assert.match(qrCodeDataUrl, /^data:image\/png;base64,[A-Za-z0-9+/=]{200,}$/);
  assert.equal(
    (await call(app, 'POST', '/api/auth/2fa/setup', { token, body: { currentPassword: 'wrong-password' } })).json.code,
    'AUTH_WRONG_PASSWORD',
  );
  const wrong = await call(app, 'POST', '/api/auth/2fa/enable', {
    token,
    body: { code: '000000' === (await totpCode(secret)) ? '111111' : '000000' },
  });
  assert.deepEqual(
    [wrong.status, wrong.json.code],
    [400, 'AUTH_2FA_CODE_WRONG'],
    'a wrong code on an account route is a 400: the console must not log out',
  );
  const enabled = await call(app, 'POST', '/api/auth/2fa/enable', { token, body: { code: await totpCode(secret) } });
  assert.equal(enabled.status, 200, enabled.body);
  const codes: string[] = enabled.json.data.recoveryCodes;
  assert.equal(codes.length, 10);
  assert.ok(
    codes.every((c) => /^[0-9A-F]{4}(-[0-9A-F]{4}){3}$/.test(c)),
    codes.join(' '),
  );
  assert.equal(new Set(codes).size, 10);
  assert.equal(enabled.json.data.user.twoFactorEnabled, true);
  assert.equal(enabled.json.data.user.mfaEnabled, true);
  assert.equal(enabled.json.data.user.twoFactorRecoveryCodesRemaining, 10);

  // --- Login now needs the second factor, and says which ones the account has.
  const missing = await login(app);
  assert.deepEqual([missing.status, missing.json.code], [401, 'AUTH_2FA_REQUIRED']);
  assert.deepEqual(missing.json.details.methods, ['totp', 'recovery_code']);
  assert.equal(missing.json.data, undefined, 'no token without the second factor');

  // --- A code: the next period's (the enabling used this one); the same code twice is refused.
  const code = await totpCode(secret, 1);
  const withCode = await login(app, { twoFactorCode: code });
  assert.equal(withCode.status, 200, withCode.body);
  const replay = await login(app, { twoFactorCode: code });
  assert.deepEqual([replay.status, replay.json.code], [401, 'AUTH_2FA_INVALID'], 'a TOTP code is accepted once');

  // --- A recovery code, typed in lower case without dashes: works once.
  const recovery = codes[3]!.replace(/-/g, '').toLowerCase();
  const withRecovery = await login(app, { twoFactorCode: recovery });
  assert.equal(withRecovery.status, 200, withRecovery.body);
  assert.equal((await profile()).twoFactorRecoveryCodesRemaining, 9);
  assert.equal(
    (await login(app, { twoFactorCode: codes[3] })).json.code,
    'AUTH_2FA_INVALID',
    'a recovery code is single use',
  );

  // --- Remember this device: a cookie for browsers, the token in the JSON for other clients.
  const remembered = await login(
    app,
    { twoFactorCode: codes[0], rememberDevice: true, trustedDeviceName: 'Work laptop' },
    { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' },
  );
  assert.equal(remembered.status, 200, remembered.body);
  const deviceToken: string = remembered.json.data.trustedDeviceToken;
  assert.match(deviceToken, /^bpd_[0-9a-f]{64}$/);
  assert.equal(remembered.json.data.trustedDevice.name, 'Work laptop');
  const cookie = cookieFrom(remembered.headers, 'backplane_trusted_device');
  assert.equal(cookie?.value, deviceToken);
  assert.match(cookie!.attributes, /HttpOnly/);
  assert.match(cookie!.attributes, /SameSite=Lax/);
  assert.match(cookie!.attributes, /Path=\/api\/auth/);
  assert.match(cookie!.attributes, /Max-Age=2592000/);
  const byCookie = await login(app, {}, { cookie: `backplane_trusted_device=${deviceToken}` });
  assert.equal(byCookie.status, 200, byCookie.body);
  assert.equal(
    (await login(app, { trustedDeviceToken: deviceToken })).status,
    200,
    'non-browser clients send the token in the body',
  );
  assert.equal(
    (await login(app, { trustedDeviceToken: `bpd_${'0'.repeat(64)}` })).json.code,
    'AUTH_2FA_REQUIRED',
    'an unknown device token is no factor',
  );
  const devices = await call(app, 'GET', '/api/auth/trusted-devices', {
    token,
    headers: { cookie: `backplane_trusted_device=${deviceToken}` },
  });
  assert.equal(devices.status, 200, devices.body);
  assert.equal(devices.json.data.length, 1);
  assert.deepEqual(
    [devices.json.data[0].name, devices.json.data[0].lastIp, devices.json.data[0].current],
    ['Work laptop', '127.0.0.1', true],
  );
  assert.match(devices.json.data[0].userAgent, /Firefox/);

  // --- A passkey, registered with the password and logged in with after the password.
  const authenticator = new SoftAuthenticator(ORIGIN);
  const options = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token,
    body: { currentPassword: ALICE.password },
  });
  assert.equal(options.status, 200, options.body);
  assert.equal(options.json.data.rp.id, 'backplane.example.test');
  assert.equal(options.json.data.attestation, 'none');
  assert.deepEqual(
    options.json.data.pubKeyCredParams.map((p: { alg: number }) => p.alg),
    [-7, -8],
  );
  const finished = await call(app, 'POST', '/api/auth/webauthn/register/finish', {
    token,
    body: { name: 'Laptop passkey', credential: authenticator.create(options.json.data) },
  });
  assert.equal(finished.status, 200, finished.body);
  assert.deepEqual([finished.json.data.webAuthnEnabled, finished.json.data.webAuthnCredentialCount], [true, 1]);
  const listed = await call(app, 'GET', '/api/auth/webauthn/credentials', { token });
  assert.deepEqual(
    listed.json.data.map((p: { name: string; userVerified: boolean }) => [p.name, p.userVerified]),
    [['Laptop passkey', true]],
  );

  const loginOptions = await call(app, 'POST', '/api/auth/webauthn/login/options', { body: ALICE });
  assert.equal(loginOptions.status, 200, loginOptions.body);
  assert.equal(loginOptions.json.data.allowCredentials.length, 1);
  const assertion = authenticator.get(loginOptions.json.data);
  const byPasskey = await login(app, { webAuthnAssertion: assertion });
  assert.equal(byPasskey.status, 200, byPasskey.body);
  assert.equal(
    (await login(app, { webAuthnAssertion: assertion })).json.code,
    'AUTH_2FA_INVALID',
    'a challenge is single use',
  );
  assert.deepEqual((await login(app)).json.details.methods, ['totp', 'recovery_code', 'webauthn']);

  // --- Everything lost: an admin resets the factors; not their own, and not an operator.
  const {
    json: {
      data: { id: adminId },
    },
  } = await call(app, 'GET', '/api/auth/profile', { token: admin });
  assert.equal(
    (await call(app, 'POST', `/api/users/${adminId}/2fa/reset`, { token: admin })).json.code,
    'USER_SELF_2FA_RESET',
  );
  assert.equal(
    (await call(app, 'POST', `/api/users/${aliceId}/2fa/reset`, { token })).status,
    403,
    'operators cannot reset anyone',
  );
  const reset = await call(app, 'POST', `/api/users/${aliceId}/2fa/reset`, { token: admin });
  assert.equal(reset.status, 200, reset.body);
  for (const flag of ['mfaEnabled', 'twoFactorEnabled', 'webAuthnEnabled', 'emailOtpEnabled', 'smsOtpEnabled'])
    assert.equal(reset.json.data[flag], false, flag);
  assert.deepEqual(
    [
      reset.json.data.twoFactorRecoveryCodesRemaining,
      reset.json.data.webAuthnCredentialCount,
      reset.json.data.trustedDeviceCount,
    ],
    [0, 0, 0],
  );
  const em = app.diContainer.cradle.orm.em.fork();
  assert.equal(await em.count(PasskeyEntity, { userId: aliceId }), 0);
  assert.equal(await em.count(RecoveryCodeEntity, { userId: aliceId }), 0);
  assert.equal(await em.count(TrustedDeviceEntity, { userId: aliceId }), 0);
  const fresh = await login(app);
  assert.equal(fresh.status, 200, 'with no factor left the password is enough again, so Alice can enrol anew');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { limit: '200' } });
  const actions = audit.json.data.items.map(
    (r: { action: string; detail: string }) => `${r.action}${r.detail ? ` ${r.detail}` : ''}`,
  );
  for (const expected of [
    'two_factor_enable',
    // A counted failure names its place in the account's run of failures (docs/account-security.md#the-cap-on-failed-sign-ins).
    'two_factor_required AUTH_2FA_REQUIRED, failure=1',
    'login_success factor=totp',
    'login_success factor=recovery_code',
    'login_success factor=recovery_code, remembered_device',
    'login_success factor=trusted_device',
    'webauthn_register passkey=Laptop passkey',
    'login_success factor=webauthn',
    'login_failed AUTH_2FA_INVALID, failure=',
    'two_factor_reset',
  ]) {
    assert.ok(
      actions.some((a: string) => (expected.endsWith('=') ? a.startsWith(expected) : a === expected)),
      `audited: ${expected}`,
    );
  }
});
