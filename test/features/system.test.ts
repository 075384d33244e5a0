import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { isNewer } from '../../core/features/system/update-check.ts';
import { databaseLocation } from '../../core/db/orm.ts';

const PACKAGE_VERSION = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** A stand-in release feed on 127.0.0.1:0; closed with all its connections when the test ends. */
async function feed(t: TestContext, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/latest`, requests };
}

const json =
  (body: unknown, status = 200) =>
  (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** Builds an app whose update check reads `url` with a short timeout, and returns an admin token. */
async function appWithFeed(t: TestContext, url: string, timeoutMs = 300) {
  const { app } = await build(t, { config: { updateFeedUrl: url, updateCheckTimeoutMs: timeoutMs } });
  return { app, token: await setupAdmin(app) };
}

async function updateCheck(app: Awaited<ReturnType<typeof appWithFeed>>['app'], token: string) {
  const started = Date.now();
  const res = await call(app, 'GET', '/api/system/update-check', { token });
  return { ...res, ms: Date.now() - started };
}

// ---- /api/system/info -------------------------------------------------------------------------

test('GET /api/system/info reports version, database, disk, runtime and plugins', async (t) => {
  const { app, config } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const res = await call(app, 'GET', '/api/system/info', { token: viewer.token });
  assert.equal(res.status, 200);
  assert.equal(res.json.code, 'OK');
  const info = res.json.data;
  assert.equal(info.version, PACKAGE_VERSION);
  assert.equal(info.mode, 'release', 'the log level is not debug');
  assert.equal(info.role, 'master');
  assert.equal(info.database, 'sqlite');
  assert.equal(info.databasePath, config.databaseUrl.slice('sqlite:'.length));
  assert.equal(info.nodeVersion, process.version);
  assert.equal(info.platform, `${process.platform}/${process.arch}`);
  assert.equal(info.dataDir, config.dataDir);
  assert.equal(
    info.scheduleTimeZone,
    Intl.DateTimeFormat().resolvedOptions().timeZone,
    "no timezone setting: the server's zone",
  );
  const set = await call(app, 'PUT', '/api/settings', { token: admin, body: { timezone: 'Asia/Tokyo' } });
  assert.equal(set.status, 200, set.body);
  assert.equal(
    (await call(app, 'GET', '/api/system/info', { token: viewer.token })).json.data.scheduleTimeZone,
    'Asia/Tokyo',
  );
  assert.ok(!Number.isNaN(Date.parse(info.startedAt)) && Date.parse(info.startedAt) <= Date.now());
  assert.ok(Number.isInteger(info.uptimeSeconds) && info.uptimeSeconds >= 0);
  for (const field of ['diskTotal', 'diskFree'])
    assert.ok(typeof info[field] === 'number' && info[field] > 0, `${field}=${info[field]}`);
  assert.ok(info.diskUsed >= 0);
  // df's figures: blocks reserved for root are neither used nor free.
  assert.ok(info.diskFree + info.diskUsed <= info.diskTotal);

  assert.ok(Array.isArray(info.plugins));
  for (const p of info.plugins) {
    assert.equal(typeof p.name, 'string');
    assert.ok(['builtin', 'package', 'config'].includes(p.origin), p.origin);
    assert.equal(typeof p.source, 'string');
    assert.ok(p.version === null || typeof p.version === 'string');
  }
  assert.deepEqual(Object.keys(info.providers).sort(), ['database', 'notifier', 'storage']);
  // Every provider type is owned by a loaded plugin.
  const names = new Set(info.plugins.map((p: { name: string }) => p.name));
  for (const kind of ['storage', 'notifier', 'database']) {
    for (const [type, owner] of Object.entries(info.providers[kind] as Record<string, string>))
      assert.ok(names.has(owner), `${kind} ${type} owned by unknown plugin ${owner}`);
  }
  // Nothing secret: the master key and the database URL's credentials are not part of it.
  assert.ok(!('secretKey' in info) && !('databaseUrl' in info));
});

test('databasePath never shows the PostgreSQL credentials', () => {
  assert.equal(databaseLocation('sqlite:/var/lib/backplane/backplane.db'), '/var/lib/backplane/backplane.db');
  assert.equal(
    databaseLocation('postgres://backplane:s3cret@db.internal:5432/backplane?sslmode=require&password=x'),
    'postgres://db.internal:5432/backplane',
  );
  assert.equal(databaseLocation('postgresql://db.internal/backplane'), 'postgresql://db.internal/backplane');
});

// ---- /api/system/update-check -------------------------------------------------------------------

test('update check: a newer release is reported with its fields mapped', async (t) => {
  const server = await feed(
    t,
    json({
      tag_name: 'v99.1.0',
      html_url: 'https://example.com/releases/v99.1.0',
      body: 'Release notes\n- faster',
      published_at: '2030-01-02T03:04:05Z',
      tarball_url: 'https://example.com/tarball/v99.1.0',
      unrelated: 'ignored',
    }),
  );
  const { app, token } = await appWithFeed(t, server.url);
  const res = await updateCheck(app, token);
  assert.equal(res.status, 200, res.body);
  assert.deepEqual(res.json.data, {
    currentVersion: PACKAGE_VERSION,
    latestVersion: '99.1.0',
    hasUpdate: true,
    releaseUrl: 'https://example.com/releases/v99.1.0',
    releaseNotes: 'Release notes\n- faster',
    publishedAt: '2030-01-02T03:04:05Z',
    downloadUrl: 'https://example.com/tarball/v99.1.0',
  });
  assert.equal(server.requests.length, 1);
  assert.match(String(server.requests[0]!.headers.accept), /application\/json/);
  assert.equal(server.requests[0]!.headers['user-agent'], `Backplane/${PACKAGE_VERSION}`);
});

test('update check: the same or an older release is not an update; missing fields get defaults', async (t) => {
  let release: unknown = { tag_name: `v${PACKAGE_VERSION}` };
  const server = await feed(t, (req, res) => json(release)(req, res));
  const { app, token } = await appWithFeed(t, server.url);

  const same = await updateCheck(app, token);
  assert.equal(same.status, 200, same.body);
  assert.equal(same.json.data.hasUpdate, false);
  assert.equal(same.json.data.latestVersion, PACKAGE_VERSION);
  assert.deepEqual(
    {
      releaseUrl: same.json.data.releaseUrl,
      releaseNotes: same.json.data.releaseNotes,
      publishedAt: same.json.data.publishedAt,
      downloadUrl: same.json.data.downloadUrl,
    },
    { releaseUrl: '', releaseNotes: '', publishedAt: undefined, downloadUrl: '' },
  );
  assert.ok(!('publishedAt' in same.json.data), 'an unknown date is left out, as the reference does');

  release = { tag_name: '0.0.1', html_url: 42, body: ['not', 'text'], published_at: false };
  const older = await updateCheck(app, token);
  assert.equal(older.status, 200);
  assert.equal(older.json.data.hasUpdate, false);
  assert.equal(older.json.data.latestVersion, '0.0.1');
  assert.equal(older.json.data.releaseUrl, '', 'a non-string field is not passed through');
  assert.ok(!('publishedAt' in older.json.data));

  release = { tag_name: 'v0.0.0-nightly' };
  assert.equal((await updateCheck(app, token)).json.data.hasUpdate, false);

  // Long notes are cut, not refused.
  release = { tag_name: '1000.0.0', body: 'n'.repeat(50_000) };
  const long = await updateCheck(app, token);
  assert.equal(long.json.data.hasUpdate, true);
  assert.equal(long.json.data.releaseNotes.length, 20_000);
});

test('update check: a closed port is a quick 502 UPDATE_CHECK_FAILED', async (t) => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((r) => probe.close(() => r()));

  const { app, token } = await appWithFeed(t, `http://127.0.0.1:${port}/latest`, 5000);
  const res = await updateCheck(app, token);
  assert.equal(res.status, 502);
  assert.equal(res.json.code, 'UPDATE_CHECK_FAILED');
  assert.equal(typeof res.json.message, 'string');
  assert.ok(res.ms < 2000, `refused connections fail fast, not after the 5 s timeout (took ${res.ms} ms)`);
});

test('update check: a feed that never answers is a 502 after the short timeout, not a hang', async (t) => {
  const server = await feed(t, () => {
    /* never answers */
  });
  const { app, token } = await appWithFeed(t, server.url, 300);
  const res = await updateCheck(app, token);
  assert.equal(res.status, 502);
  assert.equal(res.json.code, 'UPDATE_CHECK_FAILED');
  assert.match(res.json.message, /300 ms/);
  assert.ok(res.ms >= 250, `waited for the timeout (${res.ms} ms)`);
  assert.ok(res.ms < 2500, `gave up soon after the timeout (${res.ms} ms)`);
  assert.equal(server.requests.length, 1);
});

test('update check: a feed that stalls in the middle of its body also times out', async (t) => {
  const server = await feed(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"tag_name": "v9'); // and nothing more
  });
  const { app, token } = await appWithFeed(t, server.url, 300);
  const res = await updateCheck(app, token);
  assert.equal(res.status, 502);
  assert.equal(res.json.code, 'UPDATE_CHECK_FAILED');
  assert.ok(res.ms < 2500, `took ${res.ms} ms`);
});

test('update check: 404, 500, non-JSON and JSON without a version are 502', async (t) => {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = json({ message: 'Not Found' }, 404);
  const server = await feed(t, (req, res) => handler(req, res));
  const { app, token } = await appWithFeed(t, server.url);

  const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, RegExp?][] = [
    ['404', json({ message: 'Not Found' }, 404), /404/],
    ['500', json({ tag_name: 'v99.0.0' }, 500), /500/],
    [
      'HTML',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>rate limited</html>');
      },
    ],
    [
      'empty body',
      (_req, res) => {
        res.writeHead(200);
        res.end();
      },
    ],
    ['JSON null', json(null)],
    ['JSON array', json([{ tag_name: 'v99.0.0' }])],
    ['no tag_name', json({ name: 'Release 99' })],
    ['numeric tag_name', json({ tag_name: 99 })],
  ];
  for (const [name, h, message] of cases) {
    handler = h;
    const res = await updateCheck(app, token);
    assert.equal(res.status, 502, `${name}: ${res.body}`);
    assert.equal(res.json.code, 'UPDATE_CHECK_FAILED', name);
    if (message) assert.match(res.json.message, message, name);
  }
  assert.equal(server.requests.length, cases.length);
  // And a good answer afterwards still works: nothing is cached from the failures.
  handler = json({ tag_name: 'v99.0.0' });
  assert.equal((await updateCheck(app, token)).json.data.hasUpdate, true);
});

test('isNewer compares dotted versions numerically', () => {
  assert.equal(isNewer('0.10.0', '0.9.0'), true, 'numeric, not lexicographic');
  assert.equal(isNewer('0.9.0', '0.10.0'), false);
  assert.equal(isNewer('v2.0.0', '1.9.9'), true, 'a leading v is ignored');
  assert.equal(isNewer('1.0.0', 'V1.0.0'), false);
  assert.equal(isNewer('1.0', '1.0.0'), false, 'missing parts count as zero');
  assert.equal(isNewer('1.0.1', '1.0'), true);
  assert.equal(isNewer('1.2.3-rc.1', '1.2.3'), false, 'pre-release suffixes are ignored');
  assert.equal(isNewer('1.2.4+build.5', '1.2.3'), true);
  assert.equal(isNewer('1.2.3', '1.2.3'), false);
});
