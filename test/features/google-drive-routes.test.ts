import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { GoogleStandIn } from '../helpers/google-stand-in.ts';
import { OAuthSessionEntity } from '../../core/db/entities/oauth-session.ts';

/** The browser's part: open the consent URL and read the code from Google's redirect. */
async function consent(authUrl: string): Promise<{ code: string; state: string }> {
  const res = await fetch(authUrl, { redirect: 'manual' });
  assert.equal(res.status, 302, await res.text());
  const back = new URL(res.headers.get('location')!);
  return { code: back.searchParams.get('code')!, state: back.searchParams.get('state')! };
}

async function appWithStandIn(t: import('node:test').TestContext) {
  const standIn = await GoogleStandIn.start();
  t.after(() => standIn.close());
  // The endpoints come from configuration, as an operator would set them for a mirror.
  const built = await build(t, { config: { googleAuthUrl: standIn.authUrl, googleTokenUrl: standIn.tokenUrl, googleApiUrl: standIn.apiUrl, externalUrl: 'https://backup.example' } });
  return { ...built, standIn, admin: await setupAdmin(built.app) };
}

test('Google Drive: auth-url, consent, complete, profile, re-authorisation', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const start = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin, body: { name: 'drive', clientId: standIn.clientId, clientSecret: standIn.clientSecret },
  });
  assert.equal(start.status, 200, start.body);
  const { authUrl, state, redirectUri } = start.json.data;
  assert.equal(redirectUri, 'https://backup.example/storage-targets/google-drive/callback');
  assert.ok(authUrl.startsWith(standIn.authUrl), 'the consent URL points at the configured endpoint');
  assert.ok(!start.body.includes(standIn.clientSecret), 'the client secret is not echoed');

  const granted = await consent(authUrl);
  assert.equal(granted.state, state);
  const done = await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token: admin, body: granted });
  assert.equal(done.status, 200, done.body);
  const target = done.json.data;
  assert.equal(target.type, 'google_drive');
  assert.equal(target.config.clientSecret, '********');
  assert.equal(target.config.refreshToken, '********');
  assert.deepEqual(target.maskedFields, ['clientSecret', 'refreshToken']);

  const again = await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token: admin, body: granted });
  assert.equal(again.status, 400);
  assert.equal(again.json.code, 'STORAGE_GOOGLE_OAUTH_STATE_INVALID', 'state is single use');

  const profile = await call(app, 'GET', `/api/storage-targets/${target.id}/google-drive/profile`, { token: admin });
  assert.equal(profile.status, 200, profile.body);
  assert.equal(profile.json.data.email, standIn.user.emailAddress);
  const tested = await call(app, 'POST', `/api/storage-targets/${target.id}/test`, { token: admin });
  assert.equal(tested.status, 200, tested.body);

  // Re-authorise with masked credentials: the stored ones are used.
  const re = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body: { targetId: target.id, clientSecret: '********' } });
  assert.equal(re.status, 200, re.body);
  const regrant = await consent(re.json.data.authUrl);
  const cb = await call(app, 'GET', '/api/storage-targets/google-drive/callback', { token: admin, query: regrant });
  assert.equal(cb.status, 200, cb.body);
  assert.equal(cb.json.data.success, true);
  assert.equal(cb.json.data.target.id, target.id);
  assert.equal((await call(app, 'GET', '/api/storage-targets', { token: admin })).headers['x-total-count'], '1', 're-authorisation creates no new target');
});

test('Google Drive: refused codes, unknown state, wrong type and viewers are coded 4xx', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const start = (await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin, body: { name: 'drive', config: { clientId: standIn.clientId, clientSecret: standIn.clientSecret } },
  })).json.data;
  const bad = await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token: admin, body: { state: start.state, code: 'not-a-code' } });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'STORAGE_GOOGLE_OAUTH_EXCHANGE_FAILED');
  const unknown = await call(app, 'POST', '/api/storage-targets/google-drive/complete', { token: admin, body: { state: 'nope', code: 'x' } });
  assert.equal(unknown.json.code, 'STORAGE_GOOGLE_OAUTH_STATE_INVALID');
  const noSecret = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body: { name: 'x', clientId: 'abc' } });
  assert.equal(noSecret.status, 400);
  const noName = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body: { clientId: 'a', clientSecret: 'b' } });
  assert.equal(noName.json.code, 'INVALID_INPUT');

  const local = await call(app, 'POST', '/api/storage-targets', { token: admin, body: { name: 'disk', type: 'local_disk', config: { basePath: '/tmp' } } });
  const mismatch = await call(app, 'GET', `/api/storage-targets/${local.json.data.id}/google-drive/profile`, { token: admin });
  assert.equal(mismatch.json.code, 'STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH');

  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const fresh = (await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin, body: { name: 'drive-2', clientId: standIn.clientId, clientSecret: standIn.clientSecret },
  })).json.data;
  const viewed = await call(app, 'GET', '/api/storage-targets/google-drive/callback', { token: viewer, query: await consent(fresh.authUrl) });
  assert.equal(viewed.status, 403, 'a viewer cannot complete an authorisation');
  const denied = await call(app, 'GET', '/api/storage-targets/google-drive/callback', { token: admin, query: { error: 'access_denied' } });
  assert.equal(denied.json.data.success, false);
});

test('Google Drive auth-url: malformed provider settings are a coded 400, and no session is kept for them', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const good = { name: 'drive', clientId: standIn.clientId, clientSecret: standIn.clientSecret };
  const cases: [string, Record<string, unknown>, string][] = [
    ['a folder id with a space', { ...good, folderId: 'abc def' }, 'STORAGE_TARGET_INVALID_CONFIG'],
    ['a folder id with a slash', { ...good, folderId: '../x' }, 'STORAGE_TARGET_INVALID_CONFIG'],
    ['a folder id in config', { name: 'drive', config: { clientId: standIn.clientId, clientSecret: standIn.clientSecret, folderId: 'a b' } }, 'STORAGE_TARGET_INVALID_CONFIG'],
    ['a lone surrogate in clientId', { ...good, clientId: '\ud800' }, 'INVALID_INPUT'],
    ['a lone surrogate in clientSecret', { ...good, clientSecret: 'x\udfff' }, 'INVALID_INPUT'],
    ['a lone surrogate in a config key', { name: 'drive', config: { clientId: 'a', clientSecret: 'b', '\ud800': 1 } }, 'INVALID_INPUT'],
    ['a number as clientId in config', { name: 'drive', config: { clientId: 12, clientSecret: 'b' } }, 'STORAGE_TARGET_INVALID_CONFIG'],
  ];
  for (const [what, body, code] of cases) {
    const res = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body });
    assert.equal(res.status, 400, `${what}: ${res.body}`);
    assert.equal(res.json.code, code, what);
  }
  const em = app.diContainer.cradle.orm.em.fork();
  assert.equal(await em.count(OAuthSessionEntity, {}), 0, 'refused starts leave no draft behind');
  // The same settings, well-formed, start the flow.
  const fine = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body: { ...good, folderId: 'abcDEF_123-x' } });
  assert.equal(fine.status, 200, fine.body);
});
