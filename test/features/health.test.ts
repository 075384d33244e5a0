import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { build, call, setupAdmin } from '../helpers/build.ts';

const PACKAGE_VERSION = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The value of one sample line of Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('/health and /api/health answer live in the envelope, without credentials', async (t) => {
  const { app } = await build(t);
  for (const url of ['/health', '/api/health']) {
    const res = await call(app, 'GET', url);
    assert.equal(res.status, 200, url);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json.code, 'OK');
    assert.equal(res.json.message, 'success');
    assert.equal(res.json.data.status, 'live');
    assert.equal(res.json.data.version, PACKAGE_VERSION);
    assert.ok(Number.isInteger(res.json.data.uptime) && res.json.data.uptime >= 0);
    assert.ok(Math.abs(Date.parse(res.json.data.timestamp) - Date.now()) < 10_000, res.json.data.timestamp);
  }
});

test('/ready and /api/ready answer ready while the database is reachable', async (t) => {
  const { app } = await build(t);
  for (const url of ['/ready', '/api/ready']) {
    const res = await call(app, 'GET', url);
    assert.equal(res.status, 200, url);
    assert.equal(res.json.code, 'OK');
    assert.equal(res.json.data.status, 'ready');
    assert.equal(res.json.data.database, 'ok');
    assert.deepEqual(res.json.data.checks, { database: 'ok' });
  }
});

test('/ready answers 503 NOT_READY once the database is closed; liveness stays up and the app still closes', async (t) => {
  const { app } = await build(t);
  assert.equal((await call(app, 'GET', '/ready')).status, 200);
  await app.diContainer.cradle.orm.close();
  for (const url of ['/ready', '/api/ready']) {
    const res = await call(app, 'GET', url);
    assert.equal(res.status, 503, url);
    assert.equal(res.json.code, 'NOT_READY');
    assert.equal(typeof res.json.message, 'string');
    assert.ok(!('data' in res.json));
  }
  // Liveness is about the process, not the database.
  assert.equal((await call(app, 'GET', '/health')).json.data.status, 'live');
  // The onClose hook closes the ORM a second time; that must not throw (build's t.after closes again).
  await app.close();
});

test('/metrics serves Prometheus text: app info, HTTP metrics by route pattern, process metrics', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  // A parameterised route, twice with different raw ids.
  for (const id of ['424242', '535353']) {
    const res = await call(app, 'DELETE', `/api/users/${id}`, { token: admin });
    assert.equal(res.status, 404);
  }
  assert.equal((await call(app, 'GET', '/no/such/route-918273')).status, 404);
  for (let i = 0; i < 3; i++) await call(app, 'GET', '/health');

  const res = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
  const text = res.body;
  assert.ok(!text.trimStart().startsWith('{'), 'not the JSON envelope');

  assert.equal(sample(text, `backplane_app_info{version="${PACKAGE_VERSION}"}`), 1);
  assert.match(text, /# TYPE backplane_http_requests_total counter/);
  assert.equal(
    sample(text, 'backplane_http_requests_total{method="DELETE",route="/api/users/:id",status_code="404"}'),
    2,
    'both ids count under one pattern',
  );
  assert.equal(sample(text, 'backplane_http_requests_total{method="GET",route="/health",status_code="200"}'), 3);
  assert.equal(
    sample(text, 'backplane_http_requests_total{method="POST",route="/api/auth/setup",status_code="200"}'),
    1,
  );
  assert.ok(!text.includes('424242') && !text.includes('535353'), 'raw ids never become labels');
  assert.ok(!text.includes('route-918273'), 'unmatched URLs never become labels');
  assert.match(text, /backplane_http_requests_total\{method="GET",route="[^"]+",status_code="404"\} 1/);
  assert.match(text, /# TYPE backplane_http_request_duration_seconds histogram/);
  assert.match(
    text,
    /backplane_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/health",status_code="200"\} \d+/,
  );
  assert.equal(
    sample(text, 'backplane_http_request_duration_seconds_count{method="GET",route="/health",status_code="200"}'),
    3,
  );

  // Process and runtime metrics from prom-client's default collectors.
  for (const name of [
    'process_cpu_user_seconds_total',
    'process_start_time_seconds',
    'nodejs_heap_size_used_bytes',
    'nodejs_eventloop_lag_seconds',
  ]) {
    assert.match(text, new RegExp(`^${name} [0-9.e+-]+$`, 'm'), name);
  }
  assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? 0) > 0);

  // /metrics counts itself on the next scrape.
  const second = await app.inject({ method: 'GET', url: '/metrics' });
  assert.equal(
    sample(second.body, 'backplane_http_requests_total{method="GET",route="/metrics",status_code="200"}'),
    1,
  );
});

test('each app has its own metrics registry', async (t) => {
  const a = await build(t);
  const b = await build(t);
  for (let i = 0; i < 4; i++) await call(a.app, 'GET', '/api/health');
  await call(b.app, 'GET', '/api/health');
  const series = 'backplane_http_requests_total{method="GET",route="/api/health",status_code="200"}';
  assert.equal(sample((await b.app.inject({ url: '/metrics' })).body, series), 1);
  assert.equal(sample((await a.app.inject({ url: '/metrics' })).body, series), 4);
});

test('an unknown route is 404 ROUTE_NOT_FOUND in the error envelope', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  for (const [method, url, token] of [
    ['GET', '/api/nope', undefined],
    ['POST', '/api/backup/nothing-here?x=1', admin],
    ['DELETE', '/totally/unknown', admin],
  ] as const) {
    const res = await call(app, method, url, { token });
    assert.equal(res.status, 404, `${method} ${url}`);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.equal(res.json.code, 'ROUTE_NOT_FOUND');
    assert.equal(typeof res.json.message, 'string');
    assert.ok(res.json.message.includes(`${method} ${url.split('?')[0]}`), res.json.message);
    assert.ok(!res.json.message.includes('x=1'), 'the query string is not echoed');
    assert.deepEqual(Object.keys(res.json).sort(), ['code', 'message']);
  }
  // A known path with an unknown method is not found either (no 500, no envelope change).
  const wrongMethod = await call(app, 'PATCH', '/api/settings', { token: admin, body: {} });
  assert.equal(wrongMethod.status, 404);
  assert.equal(wrongMethod.json.code, 'ROUTE_NOT_FOUND');
});
