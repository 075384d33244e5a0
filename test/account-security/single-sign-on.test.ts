import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import * as client from 'openid-client';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, ADMIN } from '../helpers/build.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { startProvider, browse, type TestProvider } from '../helpers/oidc-provider.ts';
import { parseOidcProviders } from '../../core/config/oidc-providers.ts';
import type { Config } from '../../core/config/config.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { ALICE, enrolTotp, passwordLogin, totpCode } from './helpers.ts';

/**
 * Single sign-on against a real OpenID provider (oidc-provider) in this process, the browser's
 * part played with plain HTTP. Every refusal is checked by its code and, in the audit log, by the
 * check that made it, so a test cannot pass for another reason.
 */

const EXTERNAL = 'https://backplane.example.test';
const REDIRECT = `${EXTERNAL}/api/auth/oidc/corp/callback`;
const OTHER_REDIRECT = 'https://other-app.example.test/callback';
const STATE_COOKIE = 'backplane_oidc_state';

interface Sso {
  idp: TestProvider;
  app: FastifyInstance;
  admin: string;
  clock: TestClock;
}

const CLIENTS = [
  { client_id: 'backplane', client_secret: 'backplane-client-secret', redirect_uris: [REDIRECT] },
  { client_id: 'other-app', client_secret: 'other-app-client-secret', redirect_uris: [OTHER_REDIRECT] },
];

function corpProvider(issuer: string, provider: Record<string, unknown> = {}) {
  return parseOidcProviders(
    [
      {
        name: 'corp',
        displayName: 'Corp ID',
        issuer,
        clientId: 'backplane',
        clientSecret: 'backplane-client-secret',
        scopes: ['openid', 'email', 'profile', 'groups'],
        ...provider,
      },
    ],
    (why) => new Error(why),
  );
}

async function ssoApp(
  t: TestContext,
  provider: Record<string, unknown> = {},
  config: Partial<Config> = {},
): Promise<Sso> {
  const idp = await startProvider(t, CLIENTS);
  const oidcProviders = corpProvider(idp.issuer, provider);
  const clock = new TestClock();
  const { app } = await build(t, { config: { externalUrl: EXTERNAL, oidcProviders, ...config }, build: { clock } });
  const admin = await setupAdmin(app);
  return { idp, app, admin, clock };
}

/** Starts a sign-in at the master: the authorization URL and the state cookie. */
async function start(app: FastifyInstance): Promise<{ location: string; stateCookie: string }> {
  const res = await app.inject({ method: 'GET', url: '/api/auth/oidc/corp/login' });
  assert.equal(res.statusCode, 302, res.body);
  const cookie = res.cookies.find((c) => c.name === STATE_COOKIE);
  assert.ok(cookie, `the state cookie is set (went to ${res.headers.location})`);
  return { location: String(res.headers.location), stateCookie: cookie.value };
}

/** The callback as the browser would call it; returns where it sends the browser. */
async function callback(app: FastifyInstance, url: URL, stateCookie: string | undefined): Promise<URL> {
  const res = await app.inject({
    method: 'GET',
    url: url.pathname + url.search,
    ...(stateCookie === undefined ? {} : { cookies: { [STATE_COOKIE]: stateCookie } }),
  });
  assert.equal(res.statusCode, 302, res.body);
  assert.equal(res.headers['cache-control'], 'no-store');
  const location = new URL(String(res.headers.location));
  assert.equal(location.origin + location.pathname, `${EXTERNAL}/login/sso`);
  return location;
}

/** A whole sign-in as `accountId` at the provider; returns the console page's query (code or error). */
async function signIn(sso: Sso, accountId: string, amr = ['pwd']): Promise<URLSearchParams> {
  sso.idp.signIn = { accountId, amr };
  const { location, stateCookie } = await start(sso.app);
  return (await callback(sso.app, await browse(location, REDIRECT), stateCookie)).searchParams;
}

const exchange = (app: FastifyInstance, body: Record<string, unknown>) =>
  call(app, 'POST', '/api/auth/oidc/exchange', { body });

/** A sign-in that ends with a session; returns the exchange's answer. */
async function ssoSession(sso: Sso, accountId: string, amr?: string[]) {
  const back = await signIn(sso, accountId, amr);
  assert.ok(back.get('code'), `a one-time code, not ${back.get('error')}`);
  const res = await exchange(sso.app, { code: back.get('code') });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

/** The newest audit entry of an action: the refusals say there which check made them. */
async function lastAudit(sso: Sso, action: string): Promise<{ detail: string; username: string }> {
  const res = await call(sso.app, 'GET', '/api/audit-logs', { token: sso.admin, query: { limit: '100' } });
  assert.equal(res.status, 200, res.body);
  const entry = (res.json.data.items as { action: string; detail: string; username: string }[]).find(
    (e) => e.action === action,
  );
  assert.ok(entry, `an audit entry ${action}`);
  return entry;
}

async function addAlice(sso: Sso, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await call(sso.app, 'POST', '/api/users', {
    token: sso.admin,
    body: { ...ALICE, email: 'alice@example.com', role: 'operator', ...extra },
  });
  assert.equal(res.status, 200, res.body);
  return res.json.data.id;
}

test('a sign-in end to end: PKCE, state and nonce sent, the e-mail linked, a session that opens the profile', async (t) => {
  const sso = await ssoApp(t, { allowEmailLinking: true });
  const aliceId = await addAlice(sso);
  sso.idp.accounts.set('alice-sub', { email: 'Alice@Example.com', email_verified: true, name: 'Alice A.' });

  const providers = await call(sso.app, 'GET', '/api/auth/oidc/providers');
  assert.equal(providers.status, 200);
  assert.deepEqual(providers.json.data, [{ name: 'corp', displayName: 'Corp ID' }]);

  const { location } = await start(sso.app);
  const auth = new URL(location);
  assert.equal(auth.origin, sso.idp.issuer);
  assert.equal(auth.searchParams.get('client_id'), 'backplane');
  assert.equal(auth.searchParams.get('redirect_uri'), REDIRECT);
  assert.equal(auth.searchParams.get('code_challenge_method'), 'S256');
  assert.match(auth.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
  assert.ok(auth.searchParams.get('state') && auth.searchParams.get('nonce'));
  assert.equal(auth.searchParams.get('scope'), 'openid email profile groups');

  const session = await ssoSession(sso, 'alice-sub');
  assert.equal(session.user.id, aliceId);
  assert.equal(session.user.username, 'alice');
  assert.equal(session.user.role, 'operator', 'no role mapping: the role is managed here');
  assert.ok(session.expiresAt);
  const profile = await call(sso.app, 'GET', '/api/auth/profile', { token: session.token });
  assert.equal(profile.status, 200, profile.body);
  assert.equal(profile.json.data.username, 'alice');
  assert.match((await lastAudit(sso, 'sso_verified')).detail, /sso=corp, match=email/);
  assert.match((await lastAudit(sso, 'login_success')).detail, /sso=corp/);

  // Linked now: the subject finds the account even when the provider's address changes.
  sso.idp.accounts.set('alice-sub', { email: 'alice@elsewhere.example', email_verified: true });
  assert.equal((await ssoSession(sso, 'alice-sub')).user.id, aliceId);
  assert.match((await lastAudit(sso, 'sso_verified')).detail, /match=subject/);
});

test('the role comes from the claims at every sign-in; no mapped value is refused', async (t) => {
  const sso = await ssoApp(t, {
    autoProvision: true,
    roleClaim: 'groups',
    roleMap: { 'backup-admins': 'admin', ops: 'operator' },
  });
  sso.idp.accounts.set('bob-sub', { preferred_username: 'bob', email: 'bob@example.com', groups: ['staff', 'ops'] });
  const first = await ssoSession(sso, 'bob-sub');
  assert.equal(first.user.username, 'bob', 'provisioned with the preferred username');
  assert.equal(first.user.role, 'operator');
  assert.equal(first.user.email, '', 'an address the provider did not verify is not kept');
  assert.match((await lastAudit(sso, 'create')).detail, /provisioned by sso=corp, role=operator/);

  sso.idp.accounts.set('bob-sub', { preferred_username: 'bob', groups: ['ops', 'backup-admins'] });
  const second = await ssoSession(sso, 'bob-sub');
  assert.equal(second.user.id, first.user.id);
  assert.equal(second.user.role, 'admin', 'the highest mapped role');
  assert.match((await lastAudit(sso, 'update')).detail, /role operator -> admin by sso=corp/);
  const before = await call(sso.app, 'GET', '/api/auth/profile', { token: first.token });
  assert.equal(before.status, 401, 'the change of role ended the older session');

  sso.idp.accounts.set('bob-sub', { preferred_username: 'bob', groups: ['staff'] });
  assert.equal((await signIn(sso, 'bob-sub')).get('error'), 'AUTH_OIDC_NO_ROLE');
  const users = await call(sso.app, 'GET', '/api/users', { token: sso.admin });
  assert.equal(users.json.data.find((u: { username: string }) => u.username === 'bob').role, 'admin');
});

test('an ID token issued to another client is refused (audience)', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  sso.idp.accounts.set('carol-sub', { email: 'carol@example.com' });
  sso.idp.signIn = { accountId: 'carol-sub', amr: ['pwd'] };
  const { location, stateCookie } = await start(sso.app);
  const nonce = new URL(location).searchParams.get('nonce')!;

  // Another application of the same provider signs Carol in with the very nonce Backplane sent:
  // a valid token in every way but its audience.
  const other = await client.discovery(new URL(sso.idp.issuer), 'other-app', 'other-app-client-secret', undefined, {
    execute: [client.allowInsecureRequests],
  });
  const verifier = client.randomPKCECodeVerifier();
  const otherUrl = client.buildAuthorizationUrl(other, {
    redirect_uri: OTHER_REDIRECT,
    scope: 'openid',
    state: 'other-state',
    nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const otherTokens = await client.authorizationCodeGrant(other, await browse(otherUrl.href, OTHER_REDIRECT), {
    pkceCodeVerifier: verifier,
    expectedState: 'other-state',
    expectedNonce: nonce,
  });
  assert.equal(otherTokens.claims()?.aud, 'other-app');

  sso.idp.tamperToken = (body) => ({ ...body, id_token: otherTokens.id_token });
  const back = (await callback(sso.app, await browse(location, REDIRECT), stateCookie)).searchParams;
  assert.equal(back.get('error'), 'AUTH_OIDC_TOKEN_INVALID');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /AUTH_OIDC_TOKEN_INVALID.*"aud"/);
  const users = await call(sso.app, 'GET', '/api/users', { token: sso.admin });
  assert.equal(users.json.data.length, 1, 'no account was made for the refused token');
});

test('an expired ID token is refused', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  sso.idp.accounts.set('dave-sub', { email: 'dave@example.com' });
  sso.idp.idTokenTtl = 1;
  sso.idp.signIn = { accountId: 'dave-sub', amr: ['pwd'] };
  const { location, stateCookie } = await start(sso.app);
  const returned = await browse(location, REDIRECT);
  // The token lives one second; the master's clock is a minute on (past openid-client's 30 s tolerance).
  await sso.clock.advance(60_000);
  const back = (await callback(sso.app, returned, stateCookie)).searchParams;
  assert.equal(back.get('error'), 'AUTH_OIDC_TOKEN_INVALID');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /AUTH_OIDC_TOKEN_INVALID.*"exp"/);
});

test('an ID token whose signature does not match its content is refused', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true, roleClaim: 'groups', roleMap: { 'backup-admins': 'admin' } });
  sso.idp.accounts.set('eve-sub', { groups: ['backup-admins'] });
  // Eve is not an admin; the token is rewritten on its way to say she is, its signature left as it was.
  sso.idp.tamperToken = (body) => {
    const [header, payload, signature] = String(body.id_token).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'admin-sub' })).toString('base64url');
    return { ...body, id_token: `${header}.${forged}.${signature}` };
  };
  assert.equal((await signIn(sso, 'eve-sub')).get('error'), 'AUTH_OIDC_TOKEN_INVALID');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /AUTH_OIDC_TOKEN_INVALID.*signature/i);
});

test('a state is used once, and only by the browser that started it', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  sso.idp.accounts.set('frank-sub', { preferred_username: 'frank' });
  sso.idp.signIn = { accountId: 'frank-sub', amr: ['pwd'] };

  // Another browser (no cookie, or the cookie of its own sign-in) cannot finish this sign-in:
  // a callback URL planted on a victim does not sign the victim in (login CSRF).
  const planted = await start(sso.app);
  const plantedUrl = await browse(planted.location, REDIRECT);
  assert.equal((await callback(sso.app, plantedUrl, undefined)).searchParams.get('error'), 'AUTH_OIDC_STATE_INVALID');
  const victim = await start(sso.app);
  assert.equal(
    (await callback(sso.app, plantedUrl, victim.stateCookie)).searchParams.get('error'),
    'AUTH_OIDC_STATE_INVALID',
  );

  const { location, stateCookie } = await start(sso.app);
  const returned = await browse(location, REDIRECT);
  assert.ok((await callback(sso.app, returned, stateCookie)).searchParams.get('code'));
  // The same answer again, cookie and all: the state was used up.
  assert.equal((await callback(sso.app, returned, stateCookie)).searchParams.get('error'), 'AUTH_OIDC_STATE_INVALID');
  // And a sign-in left unfinished expires after ten minutes.
  const late = await start(sso.app);
  const lateUrl = await browse(late.location, REDIRECT);
  await sso.clock.advance(10 * 60_000 + 1000);
  assert.equal(
    (await callback(sso.app, lateUrl, late.stateCookie)).searchParams.get('error'),
    'AUTH_OIDC_STATE_INVALID',
  );
});

test('an ID token replayed from an earlier sign-in is refused (nonce)', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  sso.idp.accounts.set('grace-sub', { preferred_username: 'grace' });
  await ssoSession(sso, 'grace-sub');
  const earlier = sso.idp.idTokens.at(-1)!;
  // Still fresh, signed, for this client: only its nonce belongs to another sign-in.
  sso.idp.tamperToken = (body) => ({ ...body, id_token: earlier });
  assert.equal((await signIn(sso, 'grace-sub')).get('error'), 'AUTH_OIDC_TOKEN_INVALID');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /AUTH_OIDC_TOKEN_INVALID.*"nonce"/);
});

test('the one-time code opens one session, within 60 seconds', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  sso.idp.accounts.set('heidi-sub', { preferred_username: 'heidi' });
  const code = (await signIn(sso, 'heidi-sub')).get('code')!;
  assert.equal((await exchange(sso.app, { code })).status, 200);
  const again = await exchange(sso.app, { code });
  assert.equal(again.status, 401);
  assert.equal(again.json.code, 'AUTH_OIDC_CODE_INVALID');

  const late = (await signIn(sso, 'heidi-sub')).get('code')!;
  await sso.clock.advance(61_000);
  const expired = await exchange(sso.app, { code: late });
  assert.equal(expired.status, 401);
  assert.equal(expired.json.code, 'AUTH_OIDC_CODE_INVALID');
  assert.equal((await exchange(sso.app, { code: 'not-a-code' })).json.code, 'AUTH_OIDC_CODE_INVALID');
});

test('the single sign-on routes are public; an unknown provider is 404 on every route of a provider', async (t) => {
  const sso = await ssoApp(t);
  const labels = sso.app.accessTable
    .filter((r) => r.url.startsWith('/api/auth/oidc/'))
    .map((r) => `${r.method} ${r.url} ${r.access}`)
    .sort();
  assert.deepEqual(labels, [
    'GET /api/auth/oidc/:name/callback public',
    'GET /api/auth/oidc/:name/login public',
    'GET /api/auth/oidc/providers public',
    'POST /api/auth/oidc/exchange public',
  ]);
  for (const url of ['/api/auth/oidc/nope/login', '/api/auth/oidc/nope/callback?code=x&state=y']) {
    const res = await call(sso.app, 'GET', url);
    assert.equal(res.status, 404, url);
    assert.equal(res.json.code, 'AUTH_OIDC_UNKNOWN_PROVIDER');
  }
});

test('accounts: no match and no provisioning is refused, an unverified address links nothing, a disabled account is refused', async (t) => {
  const sso = await ssoApp(t, { allowEmailLinking: true });
  const aliceId = await addAlice(sso);
  sso.idp.accounts.set('stranger', { email: 'stranger@example.com', email_verified: true });
  assert.equal((await signIn(sso, 'stranger')).get('error'), 'AUTH_OIDC_NO_ACCOUNT');
  sso.idp.accounts.set('unverified', { email: 'alice@example.com', email_verified: false });
  assert.equal((await signIn(sso, 'unverified')).get('error'), 'AUTH_OIDC_NO_ACCOUNT');

  sso.idp.accounts.set('alice-sub', { email: 'alice@example.com', email_verified: true });
  await ssoSession(sso, 'alice-sub');
  const disabled = await call(sso.app, 'PUT', `/api/users/${aliceId}`, { token: sso.admin, body: { disabled: true } });
  assert.equal(disabled.status, 200, disabled.body);
  assert.equal((await signIn(sso, 'alice-sub')).get('error'), 'AUTH_USER_DISABLED');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /sso=corp: AUTH_USER_DISABLED/);
});

test("the account's second factor is asked for unless the provider asserted one (amr)", async (t) => {
  const sso = await ssoApp(t, { allowEmailLinking: true });
  await addAlice(sso);
  const { secret } = await enrolTotp(sso.app, await passwordLogin(sso.app));
  sso.idp.accounts.set('alice-sub', { email: 'alice@example.com', email_verified: true });

  const code = (await signIn(sso, 'alice-sub', ['pwd'])).get('code')!;
  const required = await exchange(sso.app, { code });
  assert.equal(required.status, 401);
  assert.equal(required.json.code, 'AUTH_2FA_REQUIRED');
  assert.deepEqual(required.json.details.methods, ['totp', 'recovery_code']);
  const wrong = await exchange(sso.app, { code, twoFactorCode: '000000' });
  assert.equal(wrong.json.code, 'AUTH_2FA_INVALID');
  // Waiting for the factor, the code outlives its first minute.
  await sso.clock.advance(90_000);
  const done = await exchange(sso.app, { code, twoFactorCode: await totpCode(secret, 1) });
  assert.equal(done.status, 200, done.body);
  assert.equal(done.json.data.user.username, 'alice');
  assert.match((await lastAudit(sso, 'login_success')).detail, /sso=corp, factor=totp/);
  assert.equal((await exchange(sso.app, { code })).json.code, 'AUTH_OIDC_CODE_INVALID');

  // The provider ran its own second factor: the session comes at once.
  const asserted = (await signIn(sso, 'alice-sub', ['pwd', 'mfa'])).get('code')!;
  const session = await exchange(sso.app, { code: asserted });
  assert.equal(session.status, 200, session.body);
  assert.match((await lastAudit(sso, 'sso_verified')).detail, /provider_mfa/);
});

test('break-glass: passwords open only the named accounts, single sign-on still opens the others', async (t) => {
  const sso = await ssoApp(
    t,
    { allowEmailLinking: true },
    { localLogin: 'break-glass', breakGlassUsers: [ADMIN.username] },
  );
  await addAlice(sso);
  const refused = await call(sso.app, 'POST', '/api/auth/login', { body: ALICE });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, 'AUTH_LOCAL_LOGIN_DISABLED');
  // The same answer for a name that does not exist: nothing is told about accounts.
  const nobody = await call(sso.app, 'POST', '/api/auth/login', { body: { username: 'nobody', password: 'x' } });
  assert.equal(nobody.json.code, 'AUTH_LOCAL_LOGIN_DISABLED');
  const otp = await call(sso.app, 'POST', '/api/auth/otp/send', { body: { ...ALICE, channel: 'email' } });
  assert.equal(otp.json.code, 'AUTH_LOCAL_LOGIN_DISABLED');
  const admin = await call(sso.app, 'POST', '/api/auth/login', { body: ADMIN });
  assert.equal(admin.status, 200, 'the break-glass admin still signs in with a password');

  sso.idp.accounts.set('alice-sub', { email: 'alice@example.com', email_verified: true });
  assert.equal((await ssoSession(sso, 'alice-sub')).user.username, 'alice');
});

test('a provider that cannot be reached, and one that did not sign the user in, come back to the console coded', async (t) => {
  const sso = await ssoApp(t, { autoProvision: true });
  // The user cancels at the provider: it sends the browser back with an error instead of a code.
  const { location, stateCookie } = await start(sso.app);
  const state = new URL(location).searchParams.get('state')!;
  const denied = await callback(
    sso.app,
    new URL(`${REDIRECT}?error=access_denied&error_description=cancelled&state=${state}`),
    stateCookie,
  );
  assert.equal(denied.searchParams.get('error'), 'AUTH_OIDC_DENIED');
  assert.match((await lastAudit(sso, 'login_failed')).detail, /AUTH_OIDC_DENIED: The provider answered access_denied/);

  const { app } = await build(t, {
    config: { externalUrl: EXTERNAL, oidcProviders: corpProvider('http://127.0.0.1:1') },
  });
  const res = await app.inject({ method: 'GET', url: '/api/auth/oidc/corp/login' });
  assert.equal(res.statusCode, 302);
  assert.equal(String(res.headers.location), `${EXTERNAL}/login/sso?error=AUTH_OIDC_PROVIDER_UNAVAILABLE`);
});

test('several masters on PostgreSQL: a sign-in started on one finishes on another, its code exchanged on a third', {
  timeout: 120_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_sso_cluster');
  if (!url) return;
  const idp = await startProvider(t, CLIENTS);
  idp.accounts.set('ivan-sub', { preferred_username: 'ivan' });
  idp.signIn = { accountId: 'ivan-sub', amr: ['pwd'] };
  const secretKey = randomBytes(32).toString('hex');
  const config = {
    databaseUrl: url,
    secretKey,
    externalUrl: EXTERNAL,
    oidcProviders: corpProvider(idp.issuer, { autoProvision: true }),
  };
  const first = await build(t, { config });
  const shared = { ...config, ageIdentityFile: join(first.dataDir, 'backup.agekey') };
  const second = (await build(t, { config: shared })).app;
  const third = (await build(t, { config: shared })).app;
  await setupAdmin(first.app);

  const { location, stateCookie } = await start(first.app);
  const back = await callback(second, await browse(location, REDIRECT), stateCookie);
  const code = back.searchParams.get('code');
  assert.ok(code, `a code, not ${back.searchParams.get('error')}`);
  const session = await exchange(third, { code });
  assert.equal(session.status, 200, session.body);
  assert.equal(session.json.data.user.username, 'ivan');
  assert.equal((await exchange(first.app, { code })).json.code, 'AUTH_OIDC_CODE_INVALID', 'used up on every master');
  assert.equal((await call(first.app, 'GET', '/api/auth/profile', { token: session.json.data.token })).status, 200);
});
