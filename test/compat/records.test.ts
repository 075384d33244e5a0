import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { expectEnvelope, expectShape, Ref, Opt, Nullable, Time } from './reference-shape.ts';

/**
 * BackupX's record pages (web/src/services/{backup,restore,verification,replication}-records.ts)
 * against a real master with real runs. Shapes from web/src/types/*-records.ts and
 * web/src/services/replication-records.ts.
 */

const Int = Type.Integer();
const Num = Type.Number();
const Str = Type.String();
const Bool = Type.Boolean();
/** BackupX's running | success | failed, plus Backplane's partial and cancelled (docs/api-decisions.md). */
const Status = Type.Union(['running', 'success', 'failed', 'partial', 'cancelled'].map((s) => Type.Literal(s)));
/** BackupX types startedAt as a string; a run that never started (cancelled while queued) has null. */
const StartedAt = Nullable(Time);
const CompletedAt = Opt(Nullable(Time));

/** web/src/types/backup-records.ts: BackupLogEvent. */
const LogEvent = Ref({
  recordId: Int,
  sequence: Int,
  level: Str,
  message: Str,
  timestamp: Time,
  completed: Bool,
  status: Str,
});

/** web/src/types/backup-records.ts: BackupRecordSummary. */
const BackupRecordSummary = Ref({
  id: Int,
  taskId: Int,
  taskName: Str,
  storageTargetId: Int,
  storageTargetName: Str,
  status: Status,
  fileName: Str,
  fileSize: Num,
  checksum: Str,
  storagePath: Str,
  storageTransferMode: Opt(Type.Union([Type.Literal('direct'), Type.Literal('master_relay')])),
  durationSeconds: Num,
  errorMessage: Str,
  startedAt: StartedAt,
  completedAt: CompletedAt,
  locked: Bool,
  backupKind: Type.Union([Type.Literal('full'), Type.Literal('differential'), Type.Literal('repository')]),
});
/** BackupRecordDetail: the summary, its log as text and as events, and each target's result (StorageUploadResultItem). */
const BackupRecordDetail = Type.Intersect([
  BackupRecordSummary,
  Ref({
    logContent: Str,
    logEvents: Opt(Type.Array(LogEvent)),
    storageUploadResults: Opt(
      Type.Array(
        Ref({
          storageTargetId: Int,
          storageTargetName: Str,
          status: Str,
          storagePath: Opt(Str),
          fileSize: Opt(Num),
          transferMode: Opt(Type.Union([Type.Literal('direct'), Type.Literal('master_relay')])),
          error: Opt(Str),
        }),
      ),
    ),
  }),
]);
/** BackupRecordContents. */
const Contents = Ref({
  recordId: Int,
  total: Int,
  truncated: Bool,
  entries: Type.Array(Ref({ path: Str, size: Num, isDir: Bool })),
});

/** web/src/types/restore-records.ts. */
const RestoreSummary = Ref({
  id: Int,
  backupRecordId: Int,
  taskId: Int,
  taskName: Str,
  nodeId: Int,
  status: Status,
  errorMessage: Str,
  durationSeconds: Num,
  startedAt: StartedAt,
  completedAt: CompletedAt,
  triggeredBy: Str,
});
const RestoreDetail = Type.Intersect([RestoreSummary, Ref({ logContent: Str, logEvents: Opt(Type.Array(LogEvent)) })]);

/** web/src/types/verification-records.ts. */
const VerifySummary = Ref({
  id: Int,
  backupRecordId: Int,
  taskId: Int,
  taskName: Str,
  nodeId: Int,
  mode: Type.Union([Type.Literal('quick'), Type.Literal('deep')]),
  status: Status,
  summary: Str,
  errorMessage: Str,
  durationSeconds: Num,
  startedAt: StartedAt,
  completedAt: CompletedAt,
  triggeredBy: Str,
});
const VerifyDetail = Type.Intersect([VerifySummary, Ref({ logContent: Str, logEvents: Opt(Type.Array(LogEvent)) })]);

/** web/src/services/replication-records.ts: ReplicationRecordSummary. */
const ReplicationSummary = Ref({
  id: Int,
  backupRecordId: Int,
  taskId: Int,
  sourceTargetId: Int,
  sourceTargetName: Str,
  destTargetId: Int,
  destTargetName: Str,
  status: Status,
  storagePath: Str,
  fileSize: Num,
  checksum: Str,
  errorMessage: Str,
  durationSeconds: Num,
  triggeredBy: Str,
  startedAt: StartedAt,
  completedAt: CompletedAt,
});

/** A master with a file task that has run once. */
async function withBackup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const disk = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  await mkdir(join(src, 'docs'));
  await writeFile(join(src, 'docs', 'a.txt'), 'alpha');
  const task = await createTask(app, admin, {
    name: 'www',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'success', record.errorMessage);
  return { app, admin, disk, src, task, record };
}

const idle = async (app: FastifyInstance) => {
  const c = app.diContainer.cradle;
  await Promise.all([c.backupRuns.idle(), c.restores.idle(), c.verifications.idle(), c.replications.idle()]);
};

/** The console's own SSE parsing (streamBackupRecordLogs): frames split on a blank line, the `data:` line parsed as JSON. */
function consoleEvents(body: string): unknown[] {
  return body
    .split('\n\n')
    .map((chunk) => chunk.split('\n').find((l) => l.startsWith('data:')))
    .filter((l): l is string => !!l && !!l.slice(5).trim())
    .map((l) => JSON.parse(l.slice(5).trim()));
}

test("GET /api/backup/records: a plain array of BackupRecordSummary; the console's filters (taskId, status, dateFrom, dateTo in RFC 3339)", async (t) => {
  const { app, admin, task, record } = await withBackup(t);
  const list = expectEnvelope(
    await call(app, 'GET', '/api/backup/records', { token: admin }),
    Type.Array(BackupRecordSummary),
    'list',
  );
  assert.equal(list.length, 1);
  assert.equal(list[0].storageTransferMode, 'direct', 'a master run writes its copies itself');
  const hour = 3600_000;
  const query = {
    taskId: String(task.id),
    status: 'success',
    dateFrom: new Date(Date.now() - hour).toISOString(),
    dateTo: new Date(Date.now() + hour).toISOString(),
  };
  const filtered = expectEnvelope(
    await call(app, 'GET', '/api/backup/records', { token: admin, query }),
    Type.Array(BackupRecordSummary),
  );
  assert.deepEqual(
    filtered.map((r: any) => r.id),
    [record.id],
  );
  const none = await call(app, 'GET', '/api/backup/records', { token: admin, query: { ...query, status: 'failed' } });
  assert.deepEqual(none.json.data, []);
});

test('GET /api/backup/records/:id: BackupRecordDetail with logEvents and storageUploadResults', async (t) => {
  const { app, admin, record, disk } = await withBackup(t);
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/backup/records/${record.id}`, { token: admin }),
    BackupRecordDetail,
    'detail',
  );
  assert.ok(detail.logEvents.length > 0, 'the stored lines as events');
  assert.equal(detail.logEvents.length, detail.logContent.split('\n').length, 'one event per line of logContent');
  assert.ok(
    detail.logEvents.every(
      (e: any, i: number) => e.recordId === record.id && e.sequence === i + 1 && e.completed === false,
    ),
  );
  assert.deepEqual(
    detail.storageUploadResults.map((r: any) => [r.storageTargetId, r.status, r.transferMode]),
    [[disk.id, 'success', 'direct']],
  );
});

test('a queued run shows as running to BackupX clients (their console follows live logs only then); state says queued; filter running finds it', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const disk = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'x');
  const task = await createTask(app, admin, {
    name: 'q',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const run = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(run.status, 200, run.body);
  assert.equal(run.json.data.status, 'running');
  assert.equal(run.json.data.state, 'queued');
  const running = await call(app, 'GET', '/api/backup/records', { token: admin, query: { status: 'running' } });
  assert.deepEqual(
    running.json.data.map((r: any) => r.id),
    [run.json.data.id],
  );
  // Backplane's own vocabulary still filters exactly (the run may have started by now).
  const queued = await call(app, 'GET', '/api/backup/records', { token: admin, query: { status: 'queued' } });
  assert.equal(queued.status, 200);
  assert.ok(
    queued.json.data.every((r: any) => r.state === 'queued'),
    JSON.stringify(queued.json.data),
  );
  await idle(app);
});

test('GET /api/backup/records/:id/logs/stream: BackupLogEvent frames the console parses, ending with completed and the final status', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const res = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/logs/stream`,
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^text\/event-stream/);
  const events = consoleEvents(res.body);
  assert.ok(events.length >= 2);
  for (const e of events) expectShape(e, LogEvent, 'log event');
  const last = events.at(-1) as any;
  assert.equal(last.completed, true);
  assert.equal(last.status, 'success');
});

test('GET /api/backup/records/:id/download: the artifact with the file name in Content-Disposition, as the console parses it', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const res = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/download`,
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.equal(res.statusCode, 200);
  const name = /filename="?([^";]+)"?/i.exec(String(res.headers['content-disposition']))?.[1];
  assert.equal(name, record.fileName);
  assert.equal(res.rawPayload.length, record.fileSize);
});

test('GET /api/backup/records/:id/contents: BackupRecordContents', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const contents = expectEnvelope(
    await call(app, 'GET', `/api/backup/records/${record.id}/contents`, { token: admin }),
    Contents,
    'contents',
  );
  assert.equal(contents.recordId, record.id);
  assert.ok(
    contents.entries.some((e: any) => e.path.endsWith('docs/a.txt') && e.size === 5 && e.isDir === false),
    JSON.stringify(contents.entries),
  );
  assert.equal(contents.truncated, false);
});

test('PUT /api/backup/records/:id/lock: {locked} answers the record detail', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const locked = expectEnvelope(
    await call(app, 'PUT', `/api/backup/records/${record.id}/lock`, { token: admin, body: { locked: true } }),
    BackupRecordDetail,
    'lock',
  );
  assert.equal(locked.locked, true);
  const refused = await call(app, 'DELETE', `/api/backup/records/${record.id}`, { token: admin });
  assert.equal(refused.status, 409, 'a locked record is kept');
  const unlocked = expectEnvelope(
    await call(app, 'PUT', `/api/backup/records/${record.id}/lock`, { token: admin, body: { locked: false } }),
    BackupRecordDetail,
  );
  assert.equal(unlocked.locked, false);
});

test('DELETE /api/backup/records/:id: {deleted: true}', async (t) => {
  const { app, admin, record, disk } = await withBackup(t);
  const res = expectEnvelope(
    await call(app, 'DELETE', `/api/backup/records/${record.id}`, { token: admin }),
    Ref({ deleted: Bool }),
  );
  assert.equal(res.deleted, true);
  await assert.rejects(readFile(join(disk.dir, record.storagePath)), 'the artifact is gone');
});

test('POST /api/backup/records/batch-delete: {ids} answers {deleted: count}', async (t) => {
  const { app, admin, record, task } = await withBackup(t);
  const second = await runAndWait(app, admin, task.id);
  const res = expectEnvelope(
    await call(app, 'POST', '/api/backup/records/batch-delete', {
      token: admin,
      body: { ids: [record.id, second.id] },
    }),
    Ref({ deleted: Int }),
  );
  assert.equal(res.deleted, 2);
  assert.deepEqual((await call(app, 'GET', '/api/backup/records', { token: admin })).json.data, []);
});

test('POST /api/backup/records/:id/restore {targetPath, selectedPaths} answers RestoreRecordDetail; GET /api/restore/records, /:id, log stream', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const into = await tempDir(t);
  const started = expectEnvelope(
    await call(app, 'POST', `/api/backup/records/${record.id}/restore`, { token: admin, body: { targetPath: into } }),
    RestoreDetail,
    'restore',
  );
  await idle(app);
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/restore/records/${started.id}`, { token: admin }),
    RestoreDetail,
    'restore detail',
  );
  assert.equal(detail.status, 'success', detail.errorMessage);
  assert.ok(detail.logEvents.length > 0);
  const entry = (
    await call(app, 'GET', `/api/backup/records/${record.id}/contents`, { token: admin })
  ).json.data.entries.find((e: any) => e.path.endsWith('a.txt'));
  assert.equal(await readFile(join(into, entry.path), 'utf8'), 'alpha', 'restored under targetPath');
  const list = expectEnvelope(
    await call(app, 'GET', '/api/restore/records', {
      token: admin,
      query: {
        backupRecordId: String(record.id),
        status: 'success',
        dateFrom: new Date(Date.now() - 3600_000).toISOString(),
      },
    }),
    Type.Array(RestoreSummary),
  );
  assert.deepEqual(
    list.map((r: any) => r.id),
    [started.id],
  );
  const stream = await app.inject({
    method: 'GET',
    url: `/api/restore/records/${started.id}/logs/stream`,
    headers: { authorization: `Bearer ${admin}` },
  });
  const events = consoleEvents(stream.body);
  for (const e of events) expectShape(e, LogEvent);
  assert.equal((events.at(-1) as any).completed, true);
});

test('POST /api/backup/records/:id/verify: {mode} answers VerificationRecordDetail; GET /api/verify/records, /:id and its log stream', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const started = expectEnvelope(
    await call(app, 'POST', `/api/backup/records/${record.id}/verify`, { token: admin, body: { mode: 'deep' } }),
    VerifyDetail,
    'verify',
  );
  assert.equal(started.mode, 'deep');
  await idle(app);
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/verify/records/${started.id}`, { token: admin }),
    VerifyDetail,
    'verify detail',
  );
  assert.equal(detail.status, 'success', detail.errorMessage);
  const list = expectEnvelope(
    await call(app, 'GET', '/api/verify/records', {
      token: admin,
      query: { backupRecordId: String(record.id), status: 'success' },
    }),
    Type.Array(VerifySummary),
  );
  assert.deepEqual(
    list.map((r: any) => r.id),
    [started.id],
  );
  const stream = await app.inject({
    method: 'GET',
    url: `/api/verify/records/${started.id}/logs/stream`,
    headers: { authorization: `Bearer ${admin}` },
  });
  const events = consoleEvents(stream.body);
  for (const e of events) expectShape(e, LogEvent);
  assert.equal((events.at(-1) as any).status, 'success');
});

test('POST /api/backup/records/:id/replicate {destTargetId} answers ReplicationRecordSummary; GET /api/replication/records?destTargetId, /:id', async (t) => {
  const { app, admin, record } = await withBackup(t);
  const second = await diskTarget(t, app, admin, 'second');
  const started = expectEnvelope(
    await call(app, 'POST', `/api/backup/records/${record.id}/replicate`, {
      token: admin,
      body: { destTargetId: second.id },
    }),
    ReplicationSummary,
    'replicate',
  );
  await idle(app);
  const detail = expectEnvelope(
    await call(app, 'GET', `/api/replication/records/${started.id}`, { token: admin }),
    ReplicationSummary,
    'replication detail',
  );
  assert.equal(detail.status, 'success', detail.errorMessage);
  assert.equal(await readFile(join(second.dir, detail.storagePath), 'utf8').then((b) => b.length > 0), true);
  const mine = expectEnvelope(
    await call(app, 'GET', '/api/replication/records', { token: admin, query: { destTargetId: String(second.id) } }),
    Type.Array(ReplicationSummary),
  );
  assert.deepEqual(
    mine.map((r: any) => r.id),
    [started.id],
  );
  const other = await call(app, 'GET', '/api/replication/records', {
    token: admin,
    query: { destTargetId: String(second.id + 100) },
  });
  assert.deepEqual(other.json.data, []);
});

test('recovery lists refuse a dateFrom after dateTo with a coded 400', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  for (const url of ['/api/restore/records', '/api/verify/records', '/api/replication/records']) {
    const res = await call(app, 'GET', url, {
      token: admin,
      query: { dateFrom: '2026-02-01T00:00:00Z', dateTo: '2026-01-01T00:00:00Z' },
    });
    assert.equal(res.status, 400, url);
    assert.equal(res.json.code, 'INVALID_INPUT');
  }
});
