import { test, type TestContext } from 'node:test';
import type { AddressInfo } from 'node:net';
import assert from 'node:assert/strict';
import { ADMIN, call, build, setupAdmin } from '../helpers/build.ts';
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

test('passkeys need a relying party: a master not listening on loopback only, with nothing configured, says so', async (t) => {
  // Built but not listening (as a master on 0.0.0.0 is not loopback only): no address makes a default.
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const res = await call(app, 'POST', '/api/auth/webauthn/register/options', {
    token: admin,
    body: { currentPassword: 'admin-password-1' },
  });
  assert.deepEqual([res.status, res.json.code], [409, 'AUTH_WEBAUTHN_NOT_CONFIGURED']);
});

/** A master with the given config listening on 127.0.0.1 (port chosen by the system), its admin's token and its port. */
async function loopbackMaster(t: TestContext, config: Record<string, unknown> = {}) {
  const { app } = await build(t, { config });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return { app, port, admin: await setupAdmin(app) };
}

const adminOptions = (app: FastifyInstance, token: string) =>
  call(app, 'POST', '/api/auth/webauthn/register/options', { token, body: { currentPassword: ADMIN.password } });

test('on loopback with nothing configured, passkeys belong to localhost and the port it listens on: register and log in', async (t) => {
  const { app, port, admin } = await loopbackMaster(t);
  const origin = `http://localhost:${port}`;
  const options = await adminOptions(app, admin);
  assert.equal(options.status, 200, options.body);
  assert.equal(options.json.data.rp.id, 'localhost');
  const authenticator = new SoftAuthenticator(origin);
  const registered = await call(app, 'POST', '/api/auth/webauthn/register/finish', {
    token: admin,
    body: { name: 'Laptop', credential: authenticator.create(options.json.data) },
  });
  assert.equal(registered.status, 200, registered.body);

  // The passkey is now the admin's second factor: a password alone is not enough, the passkey is.
  const loginOptions = await call(app, 'POST', '/api/auth/webauthn/login/options', { body: ADMIN });
  assert.equal(loginOptions.status, 200, loginOptions.body);
  assert.equal(loginOptions.json.data.rpId, 'localhost');
  assert.equal((await call(app, 'POST', '/api/auth/login', { body: ADMIN })).json.code, 'AUTH_2FA_REQUIRED');
  const loggedIn = await call(app, 'POST', '/api/auth/login', {
    body: { ...ADMIN, webAuthnAssertion: authenticator.get(loginOptions.json.data) },
  });
  assert.equal(loggedIn.status, 200, loggedIn.body);
  assert.equal(loggedIn.json.data.user.username, ADMIN.username);

  // Only the master's own origin: the same machine under another name or port is another origin.
  for (const other of [`http://127.0.0.1:${port}`, `http://localhost:${port + 1}`]) {
    const again = await call(app, 'POST', '/api/auth/webauthn/login/options', { body: ADMIN });
    const assertion = authenticator.get(again.json.data, { origin: other });
    const refused = await call(app, 'POST', '/api/auth/login', { body: { ...ADMIN, webAuthnAssertion: assertion } });
    assert.equal(refused.json.code, 'AUTH_2FA_INVALID', other);
  }
});

test('on loopback, a configured relying party still wins over the localhost default', async (t) => {
  const external = await loopbackMaster(t, { externalUrl: ORIGIN });
  const fromUrl = await adminOptions(external.app, external.admin);
  assert.equal(fromUrl.status, 200, fromUrl.body);
  assert.equal(fromUrl.json.data.rp.id, 'backplane.example.test');
  const credential = new SoftAuthenticator(`http://localhost:${external.port}`).create(fromUrl.json.data);
  const refused = await call(external.app, 'POST', '/api/auth/webauthn/register/finish', {
    token: external.admin,
    body: { credential },
  });
  assert.equal(refused.json.code, 'AUTH_WEBAUTHN_INVALID', 'the localhost origin is not the configured one');

  const explicit = await loopbackMaster(t, {
    webauthnRpId: 'example.test',
    webauthnOrigins: ['https://console.example.test'],
  });
  const options = await adminOptions(explicit.app, explicit.admin);
  assert.equal(options.json.data.rp.id, 'example.test');
  const finished = await call(explicit.app, 'POST', '/api/auth/webauthn/register/finish', {
    token: explicit.admin,
    body: { credential: new SoftAuthenticator('https://console.example.test').create(options.json.data) },
  });
  assert.equal(finished.status, 200, finished.body);
});
