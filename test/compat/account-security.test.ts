import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { call } from '../helpers/build.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { accountApp, totpCode, ORIGIN, ALICE } from '../account-security/helpers.ts';
import { expectEnvelope, Ref, Opt, Nullable, Time } from './reference-shape.ts';

/**
 * BackupX compatibility of account security: every request exactly as BackupX's console sends it
 * (web/src/services/auth.ts, users.ts), every answer checked against its types there and its Go
 * DTOs (server/internal/service/auth_*.go).
 */

const UserInfo = Ref({
  id: Type.Integer(),
  username: Type.String(),
  displayName: Type.String(),
  role: Type.String(),
  mfaEnabled: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
  twoFactorRecoveryCodesRemaining: Type.Integer(),
  webAuthnEnabled: Type.Boolean(),
  webAuthnCredentialCount: Type.Integer(),
  trustedDeviceCount: Type.Integer(),
  emailOtpEnabled: Type.Boolean(),
  smsOtpEnabled: Type.Boolean(),
});
const TwoFactorSetupResult = Ref({
  secret: Type.String(),
  otpAuthUrl: Type.String(),
  qrCodeDataUrl: Type.String(),
  twoFactorEnabled: Type.Boolean(),
  twoFactorConfirmed: Type.Boolean(),
});
const TwoFactorCodesResult = Ref({ user: UserInfo, recoveryCodes: Type.Array(Type.String()) });
/** BackupX's ids are strings; the console only puts them in a URL, where Backplane's integers read the same. */
const Id = Type.Union([Type.Integer(), Type.String()]);
const Descriptor = Ref({ type: Type.Literal('public-key'), id: Type.String() });
const RegistrationOptions = Ref({
  challenge: Type.String(),
  rp: Ref({ name: Type.String(), id: Type.String() }),
  user: Ref({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
  pubKeyCredParams: Type.Array(Ref({ type: Type.Literal('public-key'), alg: Type.Integer() })),
  timeout: Type.Integer(),
  attestation: Type.Literal('none'),
  authenticatorSelection: Ref({ userVerification: Type.String() }),
  excludeCredentials: Type.Array(Descriptor),
});
const LoginOptions = Ref({
  challenge: Type.String(),
  rpId: Type.String(),
  timeout: Type.Integer(),
  userVerification: Type.String(),
  allowCredentials: Type.Array(Descriptor),
});
const WebAuthnCredential = Ref({ id: Id, name: Type.String(), createdAt: Time, lastUsedAt: Opt(Nullable(Time)) });
const TrustedDevice = Ref({
  id: Id,
  name: Type.String(),
  createdAt: Time,
  lastUsedAt: Time,
  expiresAt: Time,
  lastIp: Type.String(),
});
const AuthResult = Ref({
  token: Type.String(),
  user: UserInfo,
  trustedDeviceToken: Opt(Type.String()),
  trustedDevice: Opt(TrustedDevice),
});

/** The console's credential JSON: no clientExtensionResults or authenticatorAttachment (its WebAuthnAttestation/Assertion types). */
function asConsoleSends(credential: Record<string, unknown>) {
  const { clientExtensionResults: _e, authenticatorAttachment: _a, ...rest } = credential;
  return rest;
}

test('BackupX console: TOTP setup, enable, login with a remembered device, recovery codes, disable', async (t) => {
  const { app, token } = await accountApp(t);
  const setup = expectEnvelope(
    await call(app, 'POST', '/api/auth/2fa/setup', { token, body: { currentPassword: ALICE.password } }),
    TwoFactorSetupResult,
    '2fa setup',
  );
  const enabled = expectEnvelope(
    await call(app, 'POST', '/api/auth/2fa/enable', { token, body: { code: await totpCode(setup.secret) } }),
    TwoFactorCodesResult,
    '2fa enable',
  );
  // The console's login form sends rememberDevice and trustedDeviceName with the code.
  const session = expectEnvelope(
    await call(app, 'POST', '/api/auth/login', {
      body: { ...ALICE, twoFactorCode: enabled.recoveryCodes[0], rememberDevice: true, trustedDeviceName: 'Chrome' },
    }),
    AuthResult,
    'login',
  );
  assert.ok(session.trustedDeviceToken);
  const devices = expectEnvelope(
    await call(app, 'GET', '/api/auth/trusted-devices', { token }),
    Type.Array(TrustedDevice),
    'trusted devices',
  );
  expectEnvelope(
    await call(app, 'DELETE', `/api/auth/trusted-devices/${devices[0].id}`, {
      token,
      body: { currentPassword: ALICE.password },
    }),
    Ref({ deleted: Type.Literal(true) }),
    'revoke device',
  );
  // The password is optional: a DELETE without any body revokes too.
  await call(app, 'POST', '/api/auth/login', {
    body: { ...ALICE, twoFactorCode: enabled.recoveryCodes[1], rememberDevice: true, trustedDeviceName: 'Firefox' },
  });
  const [second] = expectEnvelope(
    await call(app, 'GET', '/api/auth/trusted-devices', { token }),
    Type.Array(TrustedDevice),
    'trusted devices',
  );
  expectEnvelope(
    await call(app, 'DELETE', `/api/auth/trusted-devices/${second.id}`, { token }),
    Ref({ deleted: Type.Literal(true) }),
    'revoke device without a body',
  );
  assert.deepEqual((await call(app, 'GET', '/api/auth/trusted-devices', { token })).json.data, []);
  const codes = expectEnvelope(
    await call(app, 'POST', '/api/auth/2fa/recovery-codes', {
      token,
      body: { currentPassword: ALICE.password, code: await totpCode(setup.secret, 1) },
    }),
    TwoFactorCodesResult,
    'recovery codes',
  );
  assert.equal(codes.recoveryCodes.length, 10);
  await new Promise((r) => setTimeout(r, Math.max(0, 30_000 - (Date.now() % 30_000)) + 50));
  const off = expectEnvelope(
    await call(app, 'DELETE', '/api/auth/2fa', {
      token,
      body: { currentPassword: ALICE.password, code: await totpCode(setup.secret, 1) },
    }),
    UserInfo,
    'disable 2fa',
  );
  assert.equal(off.twoFactorEnabled, false);
});

test('BackupX console: passkeys, OTP by SMS, and the admin reset', async (t) => {
  const { app, admin, aliceId, token } = await accountApp(t);
  const key = new SoftAuthenticator(ORIGIN);
  const options = expectEnvelope(
    await call(app, 'POST', '/api/auth/webauthn/register/options', {
      token,
      body: { currentPassword: ALICE.password },
    }),
    RegistrationOptions,
    'register options',
  );
  expectEnvelope(
    await call(app, 'POST', '/api/auth/webauthn/register/finish', {
      token,
      body: { name: 'YubiKey', credential: asConsoleSends(key.create(options)) },
    }),
    UserInfo,
    'register finish',
  );
  const list = expectEnvelope(
    await call(app, 'GET', '/api/auth/webauthn/credentials', { token }),
    Type.Array(WebAuthnCredential),
    'passkeys',
  );
  const loginOptions = expectEnvelope(
    await call(app, 'POST', '/api/auth/webauthn/login/options', { body: ALICE }),
    LoginOptions,
    'login options',
  );
  expectEnvelope(
    await call(app, 'POST', '/api/auth/login', {
      body: { ...ALICE, webAuthnAssertion: asConsoleSends(key.get(loginOptions)), rememberDevice: false },
    }),
    AuthResult,
    'passkey login',
  );

  const gateway = await startWebhookReceiver();
  t.after(() => gateway.stop());
  await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'sms',
      type: 'webhook',
      enabled: true,
      onSuccess: false,
      onFailure: false,
      eventTypes: [],
      config: { url: gateway.url },
    },
  });
  expectEnvelope(
    await call(app, 'PUT', '/api/auth/otp/config', {
      token,
      body: { currentPassword: ALICE.password, channel: 'sms', enabled: true, phone: '+15550100' },
    }),
    UserInfo,
    'otp config',
  );
  expectEnvelope(
    await call(app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'sms' } }),
    Ref({ sent: Type.Literal(true) }),
    'otp send',
  );

  const removed = expectEnvelope(
    await call(app, 'DELETE', `/api/auth/webauthn/credentials/${list[0].id}`, {
      token,
      body: { currentPassword: ALICE.password },
    }),
    UserInfo,
    'delete passkey',
  );
  assert.equal(removed.webAuthnEnabled, false);
  // web/src/services/users.ts resetUserTwoFactor: POST without a body; answers a UserSummary.
  const reset = expectEnvelope(
    await call(app, 'POST', `/api/users/${aliceId}/2fa/reset`, { token: admin }),
    Ref({ ...UserInfo.properties, disabled: Type.Boolean(), createdAt: Time }),
    '2fa reset',
  );
  assert.equal(reset.mfaEnabled, false);
});
