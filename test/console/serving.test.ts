import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { build, call, tempDir } from '../helpers/build.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { loadConfig, ConfigError } from '../../core/config/load-config.ts';

const INDEX =
  '<!doctype html><html><head><title>Backplane</title><script type="module" src="/assets/app-abc123.js"></script></head>' +
  '<body><div id="root"></div></body></html>';
const SCRIPT = 'console.log("console");';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/** A built console in a temp folder (index.html, a hashed asset, a public file), with a file beside it that must never be served. */
async function consoleDist(t: TestContext): Promise<string> {
  const root = await tempDir(t, 'backplane-console-');
  const dist = join(root, 'dist');
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), INDEX);
  await writeFile(join(dist, 'assets', 'app-abc123.js'), SCRIPT);
  await writeFile(join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(root, 'secret.txt'), 'TOP-SECRET');
  return dist;
}

function assertIndex(res: Awaited<ReturnType<typeof call>>, what: string): void {
  assert.equal(res.status, 200, what);
  assert.equal(res.body, INDEX, what);
  assert.equal(res.headers['content-type'], 'text/html; charset=utf-8', what);
  assert.equal(res.headers['cache-control'], 'no-cache', what);
}

/** The API's 404 envelope; `code` differs where a route matched and found nothing (an unknown install token). */
function assertJson404(res: Awaited<ReturnType<typeof call>>, what: string, code = 'ROUTE_NOT_FOUND'): void {
  assert.equal(res.status, 404, `${what}: ${res.body.slice(0, 100)}`);
  assert.equal(res.json?.code, code, what);
  assert.match(String(res.headers['content-type']), /^application\/json/, what);
}

/** A request sent as written, with no client normalising `..` away (as `curl --path-as-is` does). */
function rawGet(port: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: HTML }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the console at /: index.html revalidated every time, with a CSP for the page; HEAD too', async (t) => {
  const { app } = await build(t, { config: { consoleDir: await consoleDist(t) } });
  const index = await call(app, 'GET', '/', { headers: HTML });
  assertIndex(index, 'GET /');
  const csp = String(index.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only, no inline script');
  assert.match(csp, /style-src 'self' 'unsafe-inline'/, 'Mantine writes a <style> element');
  assert.match(csp, /img-src 'self' data:/);
  assert.match(csp, /connect-src 'self'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(index.headers['x-frame-options'], 'DENY');
  assert.equal(index.headers['x-content-type-options'], 'nosniff');
  // Whatever the client accepts: / is the console's address.
  assertIndex(await call(app, 'GET', '/'), 'GET / without Accept');
  const head = await app.inject({ method: 'HEAD', url: '/', headers: HTML });
  assert.equal(head.statusCode, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['cache-control'], 'no-cache');
  // The API's own answers keep their headers: no page CSP on JSON.
  const health = await call(app, 'GET', '/health');
  assert.equal(health.status, 200);
  assert.equal(health.headers['content-security-policy'], undefined);
  assert.equal(health.headers['x-frame-options'], undefined);
});

test('hashed assets are cached for good with their content type; a missing one is a JSON 404, not the page', async (t) => {
  const { app } = await build(t, { config: { consoleDir: await consoleDist(t) } });
  const asset = await call(app, 'GET', '/assets/app-abc123.js');
  assert.equal(asset.status, 200);
  assert.equal(asset.body, SCRIPT);
  assert.match(String(asset.headers['content-type']), /^(text|application)\/javascript/);
  assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok(asset.headers.etag, 'conditional requests work');
  const missing = await call(app, 'GET', '/assets/app-old999.js', { headers: HTML });
  assertJson404(missing, 'a missing asset');
  assert.notEqual(
    missing.headers['cache-control'],
    'public, max-age=31536000, immutable',
    'a 404 is not cached for a year',
  );
  // Files of the build outside assets/ (Vite's public/ folder) are served, revalidated like the index.
  const icon = await call(app, 'GET', '/favicon.svg');
  assert.equal(icon.status, 200);
  assert.match(String(icon.headers['content-type']), /^image\/svg\+xml/);
  assert.equal(icon.headers['cache-control'], 'no-cache');
});

test('page fallback: a browser asking for a console address gets index.html; API prefixes, writes and non-browsers keep the JSON 404', async (t) => {
  const { app } = await build(t, { config: { consoleDir: await consoleDist(t) } });
  assertIndex(await call(app, 'GET', '/tasks/12', { headers: HTML }), 'GET /tasks/12');
  assertIndex(await call(app, 'GET', '/records?status=failed', { headers: HTML }), 'with a query');
  assertIndex(await call(app, 'GET', '/login', { headers: { accept: 'text/html' } }), 'text/html alone');
  const head = await app.inject({ method: 'HEAD', url: '/tasks/12', headers: HTML });
  assert.equal(head.statusCode, 200);
  assert.equal(head.headers['content-type'], 'text/html; charset=utf-8');

  assertJson404(
    await call(app, 'GET', '/install/nope', { headers: HTML }),
    'GET /install/nope from a browser',
    'INSTALL_TOKEN_INVALID',
  );
  for (const path of [
    '/api/nope',
    '/api',
    '/install/nope/x',
    '/health/x',
    '/ready/x',
    '/metrics/x',
    '/storage-targets/x',
    '/assets/x.js',
  ]) {
    assertJson404(await call(app, 'GET', path, { headers: HTML }), `GET ${path} from a browser`);
  }
  assertJson404(await call(app, 'POST', '/tasks/12', { headers: HTML, body: {} }), 'POST');
  assertJson404(await call(app, 'DELETE', '/tasks/12', { headers: HTML }), 'DELETE');
  assertJson404(await call(app, 'GET', '/tasks/12', { headers: { accept: '*/*' } }), 'curl (*/*)');
  assertJson404(await call(app, 'GET', '/tasks/12', { headers: { accept: 'application/json' } }), 'a JSON client');
  assertJson404(
    await call(app, 'GET', '/tasks/12', { headers: { accept: 'text/html;q=0, application/json' } }),
    'HTML refused (q=0)',
  );
  assertJson404(await call(app, 'GET', '/tasks/12'), 'no Accept');
  // Real routes are untouched.
  assert.equal((await call(app, 'GET', '/api/auth/setup/status', { headers: HTML })).status, 200);
});

test('nothing outside the build is served: .. in any spelling is refused', async (t) => {
  const { app } = await build(t, { config: { consoleDir: await consoleDist(t) } });
  const attempts = [
    '/assets/../../secret.txt',
    '/assets/%2e%2e/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/assets/../../package.json',
    '/assets//etc/passwd',
    '/assets/%00',
  ];
  for (const path of attempts) {
    const injected = await app.inject({ method: 'GET', url: path });
    assert.ok(injected.statusCode >= 400 && injected.statusCode < 500, `${path}: ${injected.statusCode}`);
    assert.doesNotMatch(injected.body, /TOP-SECRET|"name": "backplane"|root:/, path);
  }
  const { port } = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  for (const path of attempts) {
    const raw = await rawGet(port, path);
    assert.doesNotMatch(raw.body, /TOP-SECRET|"name": "backplane"|root:/, `${path} over a socket`);
    assert.ok(raw.status === 404 || raw.status === 400 || raw.status === 403, `${path} over a socket: ${raw.status}`);
  }
});

test('console off (BACKPLANE_CONSOLE=off): no console routes, / is the JSON 404', async (t) => {
  const { app } = await build(t, { config: { console: false, consoleDir: await consoleDist(t) } });
  assertJson404(await call(app, 'GET', '/', { headers: HTML }), 'GET /');
  assertJson404(await call(app, 'GET', '/tasks/12', { headers: HTML }), 'GET /tasks/12');
  assertJson404(await call(app, 'GET', '/assets/app-abc123.js'), 'an asset');
  assert.ok(
    !app.accessTable.some((r) => r.url === '/' || r.url.startsWith('/assets')),
    'no console route is registered',
  );
});

test('console not built: / and page addresses answer 503 with how to build it; JSON clients get the envelope; the API works', async (t) => {
  const root = await tempDir(t, 'backplane-console-');
  const { app } = await build(t, { config: { consoleDir: join(root, 'dist') } });
  for (const path of ['/', '/tasks/12']) {
    const page = await call(app, 'GET', path, { headers: HTML });
    assert.equal(page.status, 503, path);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(page.headers['cache-control'], 'no-store', 'not kept once the console is built');
    assert.match(page.body, /not built/);
    assert.match(page.body, /npm run build -w @backplane\/console/);
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  }
  assert.equal((await call(app, 'GET', '/', { headers: { accept: '*/*' } })).status, 503, 'curl sees the page too');
  const json = await call(app, 'GET', '/', { headers: { accept: 'application/json' } });
  assert.equal(json.status, 503);
  assert.equal(json.json.code, 'CONSOLE_NOT_BUILT');
  assertJson404(await call(app, 'GET', '/api/nope', { headers: HTML }), 'the API keeps its 404');
  assert.equal((await call(app, 'GET', '/api/auth/setup/status')).status, 200);
});

test('a master started without a built console says so once in its log, and serves the API', async (t) => {
  const dataDir = await tempDir(t);
  const server = await startServerProcess({
    BACKPLANE_DATA_DIR: dataDir,
    BACKPLANE_CONSOLE_DIR: join(dataDir, 'no-console'),
  });
  t.after(() => server.stop());
  assert.equal((await fetch(`${server.url}/api/auth/setup/status`)).status, 200);
  const page = await fetch(`${server.url}/`, { headers: HTML });
  assert.equal(page.status, 503);
  assert.match(await page.text(), /npm run build -w @backplane\/console/);
  const warnings = server.logs.filter((l) => l.includes('web console is not built'));
  assert.equal(warnings.length, 1, server.logs.join('\n'));
  assert.equal(JSON.parse(warnings[0]!).level, 40, 'a warning');
});

test('BACKPLANE_CONSOLE: off, false and 0 turn the console off; on by default; anything else stops the start', async (t) => {
  const cwd = await tempDir(t);
  assert.equal(loadConfig({ env: {}, cwd }).console, true);
  assert.equal(loadConfig({ env: {}, cwd }).consoleDir, undefined, "the installation's packages/console/dist");
  for (const value of ['off', 'false', '0', 'OFF', 'no'])
    assert.equal(loadConfig({ env: { BACKPLANE_CONSOLE: value }, cwd }).console, false, value);
  for (const value of ['on', 'true', '1', 'yes'])
    assert.equal(loadConfig({ env: { BACKPLANE_CONSOLE: value }, cwd }).console, true, value);
  assert.throws(
    () => loadConfig({ env: { BACKPLANE_CONSOLE: 'maybe' }, cwd }),
    (err: unknown) => err instanceof ConfigError && /BACKPLANE_CONSOLE/.test(err.message),
  );
  assert.equal(
    loadConfig({ env: { BACKPLANE_CONSOLE_DIR: 'web' }, cwd }).consoleDir,
    join(cwd, 'web'),
    'relative to the working directory',
  );
});
