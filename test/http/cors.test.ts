import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, setupAdmin } from '../helpers/build.ts';
import { loadConfig, ConfigError } from '../../core/config/load-config.ts';

const ALLOWED = 'https://console.example.com';
const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((h) => h.startsWith('access-control-'));

test('without BACKPLANE_CORS_ORIGINS no response carries a CORS header and preflights are not answered', async (t) => {
  const { app } = await build(t);
  const get = await app.inject({ method: 'GET', url: '/api/health', headers: { origin: ALLOWED } });
  assert.equal(get.statusCode, 200);
  assert.deepEqual(corsHeaders(get.headers), []);
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/users',
    headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
  });
  assert.equal(preflight.statusCode, 404);
  assert.deepEqual(corsHeaders(preflight.headers), []);
});

test('an allowed origin is echoed with credentials and the exposed headers, on requests and on preflights of guarded routes', async (t) => {
  const { app } = await build(t, { config: { corsOrigins: [ALLOWED, 'http://localhost:5173'] } });
  const token = await setupAdmin(app);

  const list = await app.inject({
    method: 'GET',
    url: '/api/users',
    headers: { origin: ALLOWED, authorization: `Bearer ${token}` },
  });
  assert.equal(list.statusCode, 200);
  assert.equal(list.headers['access-control-allow-origin'], ALLOWED);
  assert.equal(list.headers['access-control-allow-credentials'], 'true');
  assert.match(String(list.headers['access-control-expose-headers']), /X-Total-Count/);
  assert.match(String(list.headers['access-control-expose-headers']), /Content-Disposition/);
  assert.match(String(list.headers.vary), /Origin/);

  // A download: the script may read its file name.
  const csv = await app.inject({
    method: 'GET',
    url: '/api/audit-logs/export',
    headers: { origin: ALLOWED, authorization: `Bearer ${token}` },
  });
  assert.equal(csv.statusCode, 200);
  assert.match(String(csv.headers['content-disposition']), /attachment/);
  assert.equal(csv.headers['access-control-allow-origin'], ALLOWED);

  // A refusal by the guard carries the headers too, so the browser lets the script read the envelope.
  const refused = await app.inject({ method: 'GET', url: '/api/users', headers: { origin: ALLOWED } });
  assert.equal(refused.statusCode, 401);
  assert.equal(refused.headers['access-control-allow-origin'], ALLOWED);

  // Browsers send preflights without credentials: the admin-only route must still answer one.
  const preflight = await app.inject({
    method: 'OPTIONS',
    url: '/api/users/7',
    headers: {
      origin: ALLOWED,
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'authorization, content-type',
    },
  });
  assert.equal(preflight.statusCode, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], ALLOWED);
  assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
  assert.match(String(preflight.headers['access-control-allow-methods']), /PUT/);
  assert.match(String(preflight.headers['access-control-allow-headers']), /authorization/i);
  assert.match(String(preflight.headers['access-control-expose-headers']), /X-Total-Count/);

  const other = await app.inject({ method: 'GET', url: '/api/health', headers: { origin: 'http://localhost:5173' } });
  assert.equal(other.headers['access-control-allow-origin'], 'http://localhost:5173');
});

test('an origin not in the list gets no CORS header, on a request or a preflight', async (t) => {
  const { app } = await build(t, { config: { corsOrigins: [ALLOWED] } });
  for (const origin of [
    'https://evil.example',
    'https://console.example.com.evil.example',
    'http://console.example.com',
  ]) {
    const get = await app.inject({ method: 'GET', url: '/api/health', headers: { origin } });
    assert.equal(get.statusCode, 200);
    assert.deepEqual(corsHeaders(get.headers), [], origin);
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/api/users',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.statusCode, 404, origin);
    assert.deepEqual(corsHeaders(preflight.headers), [], origin);
  }
  const noOrigin = await app.inject({ method: 'GET', url: '/api/health' });
  assert.deepEqual(corsHeaders(noOrigin.headers), []);
});

test('BACKPLANE_CORS_ORIGINS takes exact origins, comma-separated, and refuses anything else at start', () => {
  const load = (value: string) => loadConfig({ env: { BACKPLANE_CORS_ORIGINS: value }, cwd: '/nonexistent' });
  assert.deepEqual(load('https://a.example, http://localhost:5173').corsOrigins, [
    'https://a.example',
    'http://localhost:5173',
  ]);
  assert.deepEqual(loadConfig({ env: {}, cwd: '/nonexistent' }).corsOrigins, []);
  for (const bad of [
    '*',
    'a.example',
    'https://a.example/',
    'https://a.example/console',
    'ftp://a.example',
    'https://A.example',
    'https://a.example:443',
    'https://a.example,not an origin',
  ]) {
    assert.throws(
      () => load(bad),
      (err: unknown) => err instanceof ConfigError && /BACKPLANE_CORS_ORIGINS/.test(err.message),
      bad,
    );
  }
  assert.throws(() => load('https://a.example/'), /as browsers send it: https:\/\/a\.example/);
});
