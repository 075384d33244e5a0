import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { runInNewContext } from 'node:vm';
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
  const built = await build(t, {
    config: {
      googleAuthUrl: standIn.authUrl,
      googleTokenUrl: standIn.tokenUrl,
      googleApiUrl: standIn.apiUrl,
      externalUrl: 'https://backup.example',
    },
  });
  return { ...built, standIn, admin: await setupAdmin(built.app) };
}

test('Google Drive: auth-url, consent, complete, profile, re-authorisation', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const start = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    body: { name: 'drive', clientId: standIn.clientId, clientSecret: standIn.clientSecret },
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
  const re = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    body: { targetId: target.id, clientSecret: '********' },
  });
  assert.equal(re.status, 200, re.body);
  const regrant = await consent(re.json.data.authUrl);
  const cb = await call(app, 'GET', '/api/storage-targets/google-drive/callback', { token: admin, query: regrant });
  assert.equal(cb.status, 200, cb.body);
  assert.equal(cb.json.data.success, true);
  assert.equal(cb.json.data.target.id, target.id);
  assert.equal(
    (await call(app, 'GET', '/api/storage-targets', { token: admin })).headers['x-total-count'],
    '1',
    're-authorisation creates no new target',
  );
});

test('Google Drive: refused codes, unknown state, wrong type and viewers are coded 4xx', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const start = (
    await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
      token: admin,
      body: { name: 'drive', config: { clientId: standIn.clientId, clientSecret: standIn.clientSecret } },
    })
  ).json.data;
  const bad = await call(app, 'POST', '/api/storage-targets/google-drive/complete', {
    token: admin,
    body: { state: start.state, code: 'not-a-code' },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.code, 'STORAGE_GOOGLE_OAUTH_EXCHANGE_FAILED');
  const unknown = await call(app, 'POST', '/api/storage-targets/google-drive/complete', {
    token: admin,
    body: { state: 'nope', code: 'x' },
  });
  assert.equal(unknown.json.code, 'STORAGE_GOOGLE_OAUTH_STATE_INVALID');
  const noSecret = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    body: { name: 'x', clientId: 'abc' },
  });
  assert.equal(noSecret.status, 400);
  const noName = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    body: { clientId: 'a', clientSecret: 'b' },
  });
  assert.equal(noName.json.code, 'INVALID_INPUT');

  const local = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'disk', type: 'local_disk', config: { basePath: '/tmp' } },
  });
  const mismatch = await call(app, 'GET', `/api/storage-targets/${local.json.data.id}/google-drive/profile`, {
    token: admin,
  });
  assert.equal(mismatch.json.code, 'STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH');

  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const fresh = (
    await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
      token: admin,
      body: { name: 'drive-2', clientId: standIn.clientId, clientSecret: standIn.clientSecret },
    })
  ).json.data;
  const viewed = await call(app, 'GET', '/api/storage-targets/google-drive/callback', {
    token: viewer,
    query: await consent(fresh.authUrl),
  });
  assert.equal(viewed.status, 403, 'a viewer cannot complete an authorisation');
  const denied = await call(app, 'GET', '/api/storage-targets/google-drive/callback', {
    token: admin,
    query: { error: 'access_denied' },
  });
  assert.equal(denied.json.data.success, false);
});

/**
 * Runs the callback page's own script as a browser would after Google's redirect to `href`:
 * the few browser objects it touches are provided, `fetch` is the real one. Returns what the
 * page shows and a way to submit its form with a credential.
 */
function openCallbackPage(html: string, href: string) {
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  for (const id of ['status', 'complete', 'credential']) assert.ok(html.includes(`id="${id}"`), `the page has #${id}`);
  let onSubmit: ((event: { preventDefault(): void }) => Promise<void>) | undefined;
  const elements: Record<string, any> = {
    status: { textContent: '' },
    credential: { value: '' },
    complete: {
      hidden: true,
      addEventListener: (type: string, fn: typeof onSubmit) => {
        if (type === 'submit') onSubmit = fn;
      },
    },
  };
  const url = new URL(href);
  const page = { addressBar: href };
  runInNewContext(script, {
    URL,
    URLSearchParams,
    JSON,
    fetch,
    location: { href, search: url.search, pathname: url.pathname },
    history: {
      replaceState: (_state: unknown, _title: string, path: string) => {
        page.addressBar = new URL(path, href).href;
      },
    },
    document: { getElementById: (id: string) => elements[id] },
  });
  return {
    page,
    status: () => elements.status.textContent as string,
    formShown: () => !elements.complete.hidden,
    submit: async (credential: string) => {
      elements.credential.value = credential;
      await onSubmit!({ preventDefault: () => undefined });
    },
  };
}

test('Google Drive: the default redirect URI is a page Backplane serves, and completing through it creates the target', async (t) => {
  const standIn = await GoogleStandIn.start();
  t.after(() => standIn.close());
  const { app } = await build(t, {
    config: { googleAuthUrl: standIn.authUrl, googleTokenUrl: standIn.tokenUrl, googleApiUrl: standIn.apiUrl },
  });
  const admin = await setupAdmin(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const start = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    headers: { origin: base },
    body: { name: 'drive-from-page', clientId: standIn.clientId, clientSecret: standIn.clientSecret },
  });
  assert.equal(start.status, 200, start.body);
  assert.equal(start.json.data.redirectUri, `${base}/storage-targets/google-drive/callback`);

  // The browser follows Google's redirect to the default redirect URI: no credential, a page.
  const consented = await fetch(start.json.data.authUrl, { redirect: 'manual' });
  const back = consented.headers.get('location')!;
  assert.ok(back.startsWith(start.json.data.redirectUri), back);
  const landing = await fetch(back);
  const html = await landing.text();
  assert.equal(landing.status, 200, html);
  assert.match(landing.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(landing.headers.get('cache-control'), 'no-store');
  assert.match(landing.headers.get('content-security-policy') ?? '', /default-src 'none'/);

  const browser = openCallbackPage(html, back);
  assert.equal(browser.page.addressBar, start.json.data.redirectUri, 'the code is taken out of the address bar');
  assert.ok(browser.formShown(), browser.status());
  await browser.submit('not-a-token');
  assert.match(browser.status(), /AUTH_/, 'a refused credential is reported');
  assert.ok(browser.formShown(), 'and the operator can try again: the state is not used up');
  await browser.submit(admin);
  assert.match(browser.status(), /connected: target "drive-from-page"/, browser.status());
  const targets = await call(app, 'GET', '/api/storage-targets', { token: admin });
  assert.deepEqual(
    targets.json.data.map((x: { name: string; type: string }) => [x.name, x.type]),
    [['drive-from-page', 'google_drive']],
  );
});

test('Google Drive: the callback page reflects nothing it is sent and runs only its own script', async (t) => {
  const { app } = await build(t);
  const hostile = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>';
  const plain = await call(app, 'GET', '/storage-targets/google-drive/callback');
  const res = await call(app, 'GET', '/storage-targets/google-drive/callback', {
    query: { state: hostile, code: hostile, error: hostile, other: hostile },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body, plain.body, 'the page is the same whatever the query holds');
  assert.ok(!res.body.includes('alert('), 'no input in the markup');
  assert.equal(res.headers['cache-control'], 'no-store');
  assert.equal(res.headers['referrer-policy'], 'no-referrer');
  const csp = String(res.headers['content-security-policy']);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  for (const directive of [
    "default-src 'none'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ])
    assert.ok(csp.includes(directive), directive);
  // The one inline script and style are allowed by their hashes, so the page works under its own policy.
  const inline = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(res.body)![1]!;
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  assert.ok(csp.includes(`script-src ${hash(inline('script'))}`), csp);
  assert.ok(csp.includes(`style-src ${hash(inline('style'))}`), csp);

  // Google's refusal is shown as text, not markup.
  const denied = openCallbackPage(
    res.body,
    `http://127.0.0.1/storage-targets/google-drive/callback?error=${encodeURIComponent(hostile)}`,
  );
  assert.equal(denied.status(), `Google reported: ${hostile}. Start the authorisation again.`);
  assert.ok(!denied.formShown());
});

test('Google Drive auth-url: malformed provider settings are a coded 400, and no session is kept for them', async (t) => {
  const { app, standIn, admin } = await appWithStandIn(t);
  const good = { name: 'drive', clientId: standIn.clientId, clientSecret: standIn.clientSecret };
  const cases: [string, Record<string, unknown>, string][] = [
    ['a folder id with a space', { ...good, folderId: 'abc def' }, 'STORAGE_TARGET_INVALID_CONFIG'],
    ['a folder id with a slash', { ...good, folderId: '../x' }, 'STORAGE_TARGET_INVALID_CONFIG'],
    [
      'a folder id in config',
      { name: 'drive', config: { clientId: standIn.clientId, clientSecret: standIn.clientSecret, folderId: 'a b' } },
      'STORAGE_TARGET_INVALID_CONFIG',
    ],
    ['a lone surrogate in clientId', { ...good, clientId: '\ud800' }, 'INVALID_INPUT'],
    ['a lone surrogate in clientSecret', { ...good, clientSecret: 'x\udfff' }, 'INVALID_INPUT'],
    [
      'a lone surrogate in a config key',
      { name: 'drive', config: { clientId: 'a', clientSecret: 'b', '\ud800': 1 } },
      'INVALID_INPUT',
    ],
    [
      'a number as clientId in config',
      { name: 'drive', config: { clientId: 12, clientSecret: 'b' } },
      'STORAGE_TARGET_INVALID_CONFIG',
    ],
  ];
  for (const [what, body, code] of cases) {
    const res = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', { token: admin, body });
    assert.equal(res.status, 400, `${what}: ${res.body}`);
    assert.equal(res.json.code, code, what);
  }
  const em = app.diContainer.cradle.orm.em.fork();
  assert.equal(await em.count(OAuthSessionEntity, {}), 0, 'refused starts leave no draft behind');
  // The same settings, well-formed, start the flow.
  const fine = await call(app, 'POST', '/api/storage-targets/google-drive/auth-url', {
    token: admin,
    body: { ...good, folderId: 'abcDEF_123-x' },
  });
  assert.equal(fine.status, 200, fine.body);
});
