import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, build, setupAdmin } from '../helpers/build.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';
import { accountApp, login, ORIGIN, ALICE } from './helpers.ts';
import type { FastifyInstance } from 'fastify';

async function registerPasskey(app: FastifyInstance, token: string, authenticator: SoftAuthenticator, name = 'Key') {
  const options = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token,
    body: { currentPassword: ALICE.password },
  });
  assert.equal(options.status, 200, options.body);
  const finished = await call(app, 'POST', '/api/auth/webauthn/register/finish', {
    token,
    body: { name, credential: authenticator.create(options.json.data) },
  });
  assert.equal(finished.status, 200, finished.body);
  return options.json.data;
}

const passkeyOptions = async (app: FastifyInstance, body: Record<string, unknown> = ALICE) => {
  const res = await call(app, 'POST', '/api/auth/webauthn/login/options', { body });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
};

test("passkey checks: a foreign origin, a replayed counter, a challenge answered twice and another user's passkey are refused", async (t) => {
  const { app, admin, token } = await accountApp(t);
  const authenticator = new SoftAuthenticator(ORIGIN);
  await registerPasskey(app, token, authenticator);

  const phished = authenticator.get(await passkeyOptions(app), {
    origin: 'https://backplane.example.test.evil.example',
  });
  assert.equal(
    (await login(app, { webAuthnAssertion: phished })).json.code,
    'AUTH_2FA_INVALID',
    'an assertion made for another origin',
  );

  assert.equal((await login(app, { webAuthnAssertion: authenticator.get(await passkeyOptions(app)) })).status, 200);
  // Stored count: 2 (the phished attempt counted on the authenticator, not on the server).
  const cloned = authenticator.get(await passkeyOptions(app), { signCount: 2 });
  assert.equal(
    (await login(app, { webAuthnAssertion: cloned })).json.code,
    'AUTH_2FA_INVALID',
    'a sign counter that does not grow: a cloned authenticator',
  );
  assert.equal(
    (await login(app, { webAuthnAssertion: authenticator.get(await passkeyOptions(app), { signCount: 3 }) })).status,
    200,
    'a count above the stored one is fine again',
  );

  // The admin's own passkey cannot stand in for Alice's.
  const adminKey = new SoftAuthenticator(ORIGIN);
  const adminOptions = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token: admin,
    body: { currentPassword: 'admin-password-1' },
  });
  await call(app, 'POST', '/api/auth/webauthn/register/finish', {
    token: admin,
    body: { credential: adminKey.create(adminOptions.json.data) },
  });
  const aliceChallenge = await passkeyOptions(app);
  const foreign = adminKey.get({ ...aliceChallenge, allowCredentials: [] });
  assert.equal((await login(app, { webAuthnAssertion: foreign })).json.code, 'AUTH_2FA_INVALID');

  // Registration: a challenge is used once, and an attestation for another relying party is refused.
  const options = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token,
    body: { currentPassword: ALICE.password },
  });
  const credential = new SoftAuthenticator(ORIGIN).create(options.json.data);
  assert.equal(
    (await call(app, 'POST', '/api/auth/webauthn/register/finish', { token, body: { credential } })).status,
    200,
  );
  assert.equal(
    (await call(app, 'POST', '/api/auth/webauthn/register/finish', { token, body: { credential } })).json.code,
    'AUTH_WEBAUTHN_INVALID',
  );
  const other = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token,
    body: { currentPassword: ALICE.password },
  });
  const elsewhere = new SoftAuthenticator('https://elsewhere.example.test').create({
    ...other.json.data,
    rp: { id: 'elsewhere.example.test' },
  });
  assert.equal(
    (await call(app, 'POST', '/api/auth/webauthn/register/finish', { token, body: { credential: elsewhere } })).json
      .code,
    'AUTH_WEBAUTHN_INVALID',
  );

  // Deleting needs the password; the last passkey gone, the account has no second factor.
  const list = (await call(app, 'GET', '/api/auth/webauthn/credentials', { token })).json.data;
  assert.equal(list.length, 2);
  assert.equal(
    (
      await call(app, 'DELETE', `/api/auth/webauthn/credentials/${list[0].id}`, {
        token,
        body: { currentPassword: 'wrong-password' },
      })
    ).json.code,
    'AUTH_WRONG_PASSWORD',
  );
  assert.equal(
    (
      await call(app, 'DELETE', '/api/auth/webauthn/credentials/99999', {
        token,
        body: { currentPassword: ALICE.password },
      })
    ).json.code,
    'AUTH_WEBAUTHN_NOT_FOUND',
  );
  for (const p of list)
    assert.equal(
      (
        await call(app, 'DELETE', `/api/auth/webauthn/credentials/${p.id}`, {
          token,
          body: { currentPassword: ALICE.password },
        })
      ).status,
      200,
    );
  assert.equal((await login(app)).status, 200);
});

test('passwordless: off by default; when on, a user-verifying passkey logs in alone, one without user verification does not', async (t) => {
  const { app, admin, token } = await accountApp(t);
  const authenticator = new SoftAuthenticator(ORIGIN);
  await registerPasskey(app, token, authenticator);

  const off = await call(app, 'POST', '/api/auth/webauthn/login/options', { body: {} });
  assert.deepEqual([off.status, off.json.code], [400, 'AUTH_PASSWORDLESS_DISABLED']);
  assert.equal(
    (await call(app, 'PUT', '/api/settings', { token: admin, body: { passkey_passwordless_login: 'true' } })).status,
    200,
  );

  const options = await passkeyOptions(app, {});
  assert.deepEqual(options.allowCredentials, [], 'discoverable: the passkey names the account');
  assert.equal(options.userVerification, 'required');
  const alone = await call(app, 'POST', '/api/auth/login', { body: { webAuthnAssertion: authenticator.get(options) } });
  assert.equal(alone.status, 200, alone.body);
  assert.equal(alone.json.data.user.username, 'alice');

  authenticator.userVerification = false;
  const presenceOnly = await call(app, 'POST', '/api/auth/login', {
    body: { webAuthnAssertion: authenticator.get(await passkeyOptions(app, {})) },
  });
  assert.deepEqual(
    [presenceOnly.status, presenceOnly.json.code],
    [401, 'AUTH_2FA_INVALID'],
    'without user verification a passkey is one factor, not two',
  );
  const nameMismatch = await call(app, 'POST', '/api/auth/login', {
    body: {
      username: 'admin',
      webAuthnAssertion: ((authenticator.userVerification = true), authenticator.get(await passkeyOptions(app, {}))),
    },
  });
  assert.equal(nameMismatch.json.code, 'AUTH_2FA_INVALID', "a username given must be the passkey's account");
  assert.equal((await call(app, 'POST', '/api/auth/login', { body: {} })).json.code, 'INVALID_INPUT');
});

test('passkeys need a configured relying party: without an external URL the routes say so', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token: admin,
    body: { currentPassword: 'admin-password-1' },
  });
  assert.deepEqual([res.status, res.json.code], [409, 'AUTH_WEBAUTHN_NOT_CONFIGURED']);
});
