import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { build, call, setupAdmin, userWithRole, ADMIN } from '../helpers/build.ts';
import { diskTarget } from '../backup/helpers.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { AuditLogEntity } from '../../core/db/entities/audit-log.ts';
import { expectEnvelope, expectShape, Ref, Opt, Nullable, Time, Page } from './reference-shape.ts';

/**
 * BackupX compatibility: system information, update check, settings, audit logs, database
 * discovery, the event stream and the probes, as BackupX's web console and scripts send and
 * read them. Shapes from BackupX's Go DTOs (server/internal/service, server/internal/model) and
 * the console's types (web/src/services/*.ts, web/src/types/*.ts).
 */

/** service/system_service.go SystemInfo; web/src/services/system.ts SystemInfo. */
const SystemInfo = Ref({
  version: Type.String(),
  mode: Type.String(),
  startedAt: Time,
  uptimeSeconds: Type.Integer({ minimum: 0 }),
  databasePath: Type.String({ minLength: 1 }),
  diskTotal: Type.Integer(),
  diskFree: Type.Integer(),
  diskUsed: Type.Integer(),
});

/** service/system_service.go UpdateCheckResult (omitempty fields optional); web/src/services/system.ts. */
const UpdateCheckResult = Ref({
  currentVersion: Type.String(),
  latestVersion: Type.String(),
  hasUpdate: Type.Boolean(),
  releaseUrl: Opt(Type.String()),
  releaseNotes: Opt(Type.String()),
  publishedAt: Opt(Type.String()),
  downloadUrl: Opt(Type.String()),
  dockerImage: Opt(Type.String()),
});

/** model/audit_log.go AuditLog; web/src/types/audit.ts. `userId` is null without a user (BackupX: 0), see docs/api-decisions.md. */
const AuditLog = Ref({
  id: Type.Integer(),
  userId: Nullable(Type.Integer()),
  username: Type.String(),
  category: Type.String(),
  action: Type.String(),
  targetType: Type.String(),
  targetId: Type.String(),
  targetName: Type.String(),
  detail: Type.String(),
  clientIp: Type.String(),
  createdAt: Time,
});

/** web/src/hooks/useEventStream.ts SystemEvent (service/event_broadcaster.go EventEnvelope). */
const SystemEvent = Ref({
  type: Type.String(),
  title: Type.String(),
  body: Type.String(),
  fields: Opt(Type.Record(Type.String(), Type.Unknown())),
  timestamp: Time,
});

/** The settings keys BackupX's server allows (service/settings_service.go settingsKeys). */
const BACKUPX_SETTINGS = [
  'site_name',
  'language',
  'timezone',
  'backup_notification_enabled',
  'bandwidth_limit',
  'audit_webhook_url',
  'audit_webhook_secret',
  'audit_retention_days',
];

const MiB = 1024 * 1024;

test('GET /api/system/info: version, mode, startedAt, uptime, databasePath and the data disk as df reports it', async (t) => {
  const { app, config } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const info = expectEnvelope(await call(app, 'GET', '/api/system/info', { token: viewer }), SystemInfo, 'system info');
  assert.equal(info.mode, 'release', 'the console shows "release" as production');
  assert.equal(info.databasePath, config.databaseUrl.slice('sqlite:'.length));
  assert.ok(info.diskUsed + info.diskFree <= info.diskTotal);

  // The same disk reports the same figures here and in a local storage target's usage (both in the temp dir).
  const target = await diskTarget(t, app, admin);
  const usage = (await call(app, 'GET', `/api/storage-targets/${target.id}/usage`, { token: admin })).json.data
    .diskUsage;
  assert.equal(usage.total, info.diskTotal);
  assert.ok(Math.abs(usage.used - info.diskUsed) < 256 * MiB, `used: ${usage.used} vs ${info.diskUsed}`);
  assert.ok(Math.abs(usage.free - info.diskFree) < 256 * MiB, `free: ${usage.free} vs ${info.diskFree}`);
});

test('GET /api/system/info: mode is "debug" while the log level is debug', async (t) => {
  const { app } = await build(t, { config: { logLevel: 'debug' } });
  const admin = await setupAdmin(app);
  assert.equal(expectEnvelope(await call(app, 'GET', '/api/system/info', { token: admin }), SystemInfo).mode, 'debug');
});

test("GET /api/system/update-check: the reference's fields, optional ones left out when unknown", async (t) => {
  const feed = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ tag_name: 'v99.0.0' }));
  });
  await new Promise<void>((r) => feed.listen(0, '127.0.0.1', r));
  t.after(
    () =>
      new Promise<void>((r) => {
        feed.closeAllConnections();
        feed.close(() => r());
      }),
  );
  const { app } = await build(t, {
    config: { updateFeedUrl: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/latest` },
  });
  const admin = await setupAdmin(app);
  const result = expectEnvelope(
    await call(app, 'GET', '/api/system/update-check', { token: admin }),
    UpdateCheckResult,
    'update check',
  );
  assert.equal(result.hasUpdate, true);
  assert.equal(result.latestVersion, '99.0.0');
});

test("GET /api/settings: a string map holding BackupX's keys; PUT takes the console's {audit_retention_days} and honours it", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const settings = expectEnvelope(
    await call(app, 'GET', '/api/settings', { token: admin }),
    Type.Record(Type.String(), Type.String()),
    'settings',
  );
  for (const key of BACKUPX_SETTINGS) assert.equal(typeof settings[key], 'string', key);

  const em = app.diContainer.cradle.orm.em.fork();
  em.create(AuditLogEntity, { category: 'test', action: 'old', createdAt: new Date(Date.now() - 40 * 86400_000) });
  await em.flush();
  // The audit page's retention box (web/src/pages/audit/AuditLogsPage.tsx).
  const saved = expectEnvelope(
    await call(app, 'PUT', '/api/settings', { token: admin, body: { audit_retention_days: '30' } }),
    Type.Record(Type.String(), Type.String()),
  );
  assert.equal(saved.audit_retention_days, '30');
  assert.equal(await app.diContainer.cradle.auditRetention.sweep(), 1, 'the 40-day-old entry goes');

  const unknown = await call(app, 'PUT', '/api/settings', { token: admin, body: { theme: 'dark' } });
  assert.equal(unknown.status, 400, 'an unknown key is refused, not silently dropped');
  assert.equal(unknown.json.code, 'SETTINGS_INVALID');
  const notYet = await call(app, 'PUT', '/api/settings', { token: admin, body: { bandwidth_limit: '10M' } });
  assert.equal(notYet.status, 400, 'a value Backplane cannot honour yet is refused');
  assert.equal(notYet.json.code, 'SETTINGS_UNSUPPORTED');
});

test("GET /api/audit-logs: {items, total} filtered and paged by the console's parameters", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer', 'vera');
  for (let i = 0; i < 3; i++)
    await call(app, 'POST', '/api/auth/login', { body: { username: 'vera', password: 'viewer-password-1' } });

  const from = new Date(Date.now() - 3600_000).toISOString(); // the console sends toISOString(), milliseconds included
  const to = new Date(Date.now() + 3600_000).toISOString();
  const query = { category: 'auth', username: 'vera', dateFrom: from, dateTo: to, limit: '2', offset: '0' };
  const res = await call(app, 'GET', '/api/audit-logs', { token: viewer.token, query });
  const page = expectEnvelope(res, Page(AuditLog), 'audit page');
  assert.equal(page.total, 4, 'the first login (userWithRole) and three more');
  assert.equal(res.headers['x-total-count'], '4');
  assert.equal(page.items.length, 2, 'limit');
  assert.ok(
    page.items.every((e: { category: string; username: string }) => e.category === 'auth' && e.username === 'vera'),
  );
  const rest = expectEnvelope(
    await call(app, 'GET', '/api/audit-logs', { token: viewer.token, query: { ...query, offset: '2' } }),
    Page(AuditLog),
  );
  assert.equal(rest.items.length, 2, 'offset');
  assert.ok(rest.items[0].id < page.items[1].id, 'newest first, pages do not overlap');

  const keyword = expectEnvelope(
    await call(app, 'GET', '/api/audit-logs', { token: admin, query: { keyword: 'vera', category: 'user' } }),
    Page(AuditLog),
  );
  assert.deepEqual(
    keyword.items.map((e: { action: string }) => e.action),
    ['create'],
    'keyword matches the target name',
  );
  const none = expectEnvelope(
    await call(app, 'GET', '/api/audit-logs', { token: admin, query: { dateTo: from } }),
    Page(AuditLog),
  );
  assert.deepEqual(none, { items: [], total: 0 });
});

test("GET /api/audit-logs/export: a CSV attachment with the console's filters applied", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  await userWithRole(app, admin, 'viewer', 'vera');
  const res = await call(app, 'GET', '/api/audit-logs/export', {
    token: admin,
    query: { category: 'user', username: ADMIN.username },
  });
  assert.equal(res.status, 200);
  assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
  // The console takes the file name with /filename="?([^";]+)"?/i.
  assert.match(String(res.headers['content-disposition']), /^attachment; filename="[^";]+\.csv"$/);
  const lines = res.body
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/);
  assert.equal(lines.length, 2, 'a header and the one user-category entry');
  assert.match(lines[1]!, /,admin,user,create,user,\d+,vera,/);
});

for (const kind of ['postgres', 'mysql'] as const) {
  test(`POST /api/database/discover: the console's {type, host, port, user, password} lists ${kind} databases as names`, async (t: TestContext) => {
    const url = await requireOrSkip(t, kind);
    if (!url) return;
    const { app } = await build(t);
    const admin = await setupAdmin(app);
    const u = new URL(url);
    // web/src/services/database.ts DatabaseDiscoverPayload: every field sent, nodeId 0 = the master.
    const body = {
      type: kind === 'postgres' ? 'postgresql' : 'mysql',
      host: u.hostname,
      port: Number(u.port || (kind === 'postgres' ? 5432 : 3306)),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      nodeId: 0,
    };
    const data = expectEnvelope(
      await call(app, 'POST', '/api/database/discover', { token: admin, body }),
      Ref({ databases: Type.Array(Type.String()) }),
      'discovery',
    );
    assert.ok(data.databases.includes(u.pathname.slice(1)), `${JSON.stringify(data.databases)} holds ${u.pathname}`);
    for (const own of kind === 'postgres'
      ? ['postgres', 'template0', 'template1']
      : ['mysql', 'information_schema', 'performance_schema', 'sys']) {
      assert.ok(!data.databases.includes(own), `the server's own ${own} is left out, as in the reference`);
    }
  });
}

test("GET /api/events/stream: frames the console's fetch reader parses into its SystemEvent", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const abort = new AbortController();
  t.after(() => abort.abort());
  // As useEventStream.ts asks: a Bearer header and nothing else (no Accept).
  const res = await fetch(`${base}/api/events/stream`, {
    headers: { authorization: `Bearer ${admin}` },
    signal: abort.signal,
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  // The opening comment proves the subscription exists before anything is published.
  for (let reads = 0; !buffer.includes('\n\n'); reads++) {
    const chunk = await reader.read();
    assert.ok(!chunk.done && reads < 20, 'the stream opens with a comment');
    buffer += chunk.value;
  }
  app.diContainer.cradle.events.publish({
    type: 'restore_success',
    title: 'restored',
    body: 'db restored',
    fields: { recordId: 7 },
  });

  // The console's parseFrame: split on a blank line, skip comments, one `event:` and one `data:` line.
  for (let reads = 0; reads < 20; reads++) {
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let eventType = '';
      let dataLine = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith(':')) continue;
        if (line.startsWith('event:')) eventType = line.slice(6).trim();
        else if (line.startsWith('data:')) dataLine = line.slice(5).trim();
      }
      if (!dataLine) continue;
      const event = JSON.parse(dataLine);
      expectShape(event, SystemEvent, 'event');
      assert.equal(eventType, 'restore_success');
      assert.equal(event.type, 'restore_success');
      assert.deepEqual(event.fields, { recordId: 7 });
      return;
    }
    const chunk = await reader.read();
    assert.ok(!chunk.done, 'the stream stays open');
    buffer += chunk.value;
  }
  assert.fail('no event frame arrived');
});

test("/health and /ready: the reference's probe fields (inside the envelope, see docs/api-decisions.md)", async (t) => {
  const { app } = await build(t);
  const Probe = { version: Type.String(), uptime: Type.Integer({ minimum: 0 }), timestamp: Time };
  for (const url of ['/health', '/api/health']) {
    assert.equal(
      expectEnvelope(await call(app, 'GET', url), Ref({ status: Type.Literal('live'), ...Probe }), url).status,
      'live',
    );
  }
  for (const url of ['/ready', '/api/ready']) {
    expectEnvelope(
      await call(app, 'GET', url),
      Ref({ status: Type.Literal('ready'), ...Probe, checks: Ref({ database: Type.Literal('ok') }) }),
      url,
    );
  }
});
