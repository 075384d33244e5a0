import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, stat, writeFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { sh, q, filesUnder } from '../engine/helpers.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

async function sourceTree(dir: string): Promise<void> {
  await mkdir(join(dir, 'docs/sub'), { recursive: true });
  await mkdir(join(dir, 'cache'), { recursive: true });
  await writeFile(join(dir, 'docs/a.txt'), 'alpha\n'.repeat(1000));
  await writeFile(
    join(dir, 'docs/sub/b.bin'),
    createHash('sha256').update('seed').digest().toString('hex').repeat(5000),
  );
  await writeFile(join(dir, 'docs/skip.log'), 'excluded');
  await writeFile(join(dir, 'cache/big.tmp'), 'excluded too');
  await symlink('a.txt', join(dir, 'docs/link'));
}

test('a file task runs, stores an age+zstd tar that stock tools restore, and the record tells the truth', async (t) => {
  const { app, dataDir } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await sourceTree(src);
  const target = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'Home Files',
    type: 'file',
    sourcePaths: [src],
    excludePatterns: ['*.log', 'cache'],
    storageTargetIds: [target.id],
  });

  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(record.trigger, 'manual');
  assert.equal(record.triggeredBy, 'admin');
  assert.equal(record.encrypted, true);
  assert.equal(record.compression, 'zstd');
  assert.match(
    record.storagePath,
    new RegExp(`^home-files/\\d{4}/\\d{2}/\\d{2}/${record.id}-\\d{8}T\\d{6}Z\\.tar\\.zst\\.age$`),
  );
  assert.equal(record.fileName, record.storagePath.split('/').pop());
  assert.equal(record.storageUploadResults.length, 1);
  assert.equal(record.storageUploadResults[0].status, 'success');
  assert.equal(record.storageTargetId, target.id);
  assert.ok(record.hasContents);
  assert.match(record.logContent, /backup success/);

  // The object on disk is exactly what the record describes.
  const objectPath = join(target.dir, record.storagePath);
  const bytes = await readFile(objectPath);
  assert.equal(bytes.length, record.fileSize);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), record.checksum);

  // Stock tools read it: age -d | zstd -d | tar -x.
  const out = await tempDir(t);
  await sh(`age -d -i ${q(join(dataDir, 'backup.agekey'))} ${q(objectPath)} | zstd -d -q | tar -x -C ${q(out)}`);
  const restoredRoot = join(out, src.replace(/^\/+/, ''));
  assert.deepEqual(await filesUnder(restoredRoot), ['docs/a.txt', 'docs/link', 'docs/sub/b.bin']);
  assert.deepEqual(await readFile(join(restoredRoot, 'docs/sub/b.bin')), await readFile(join(src, 'docs/sub/b.bin')));

  // Task reflects the run.
  const taskNow = (await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token: admin })).json.data;
  assert.equal(taskNow.lastStatus, 'success');
  assert.ok(taskNow.lastRunAt);

  // Contents come from the manifest.
  const contents = await call(app, 'GET', `/api/backup/records/${record.id}/contents`, { token: admin });
  assert.equal(contents.status, 200, contents.body);
  const paths = contents.json.data.entries.map((e: { path: string }) => e.path);
  assert.ok(paths.some((p: string) => p.endsWith('docs/sub/b.bin')));
  assert.ok(!paths.some((p: string) => p.endsWith('skip.log')));
  const sub = await call(app, 'GET', `/api/backup/records/${record.id}/contents`, {
    token: admin,
    query: { prefix: `${src.slice(1)}/docs/sub` },
  });
  assert.deepEqual(
    sub.json.data.entries.map((e: { path: string }) => e.path),
    [`${src.slice(1)}/docs/sub/b.bin`],
  );
  assert.equal(sub.json.data.entries[0].isDir, false);

  // Download: native type, length, checksum header; a viewer may download.
  const viewer = await userWithRole(app, admin, 'viewer');
  const dl = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/download`,
    headers: { authorization: `Bearer ${viewer.token}` },
  });
  assert.equal(dl.statusCode, 200);
  assert.equal(dl.headers['content-type'], 'application/octet-stream');
  assert.equal(Number(dl.headers['content-length']), record.fileSize);
  assert.match(
    String(dl.headers['content-disposition']),
    new RegExp(`attachment; filename="${record.fileName.replace(/\./g, '\\.')}"`),
  );
  assert.equal(createHash('sha256').update(dl.rawPayload).digest('hex'), record.checksum);

  // Ranges.
  const part = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/download`,
    headers: { authorization: `Bearer ${admin}`, range: 'bytes=10-29' },
  });
  assert.equal(part.statusCode, 206);
  assert.equal(part.headers['content-range'], `bytes 10-29/${record.fileSize}`);
  assert.deepEqual(part.rawPayload, bytes.subarray(10, 30));
  const tail = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/download`,
    headers: { authorization: `Bearer ${admin}`, range: 'bytes=-5' },
  });
  assert.deepEqual(tail.rawPayload, bytes.subarray(bytes.length - 5));
  const bad = await call(app, 'GET', `/api/backup/records/${record.id}/download`, {
    token: admin,
    headers: { range: `bytes=${record.fileSize}-` },
  });
  assert.equal(bad.status, 416);
  assert.equal(bad.json.code, 'BACKUP_RANGE_NOT_SATISFIABLE');

  // Log stream of a finished record: the stored lines, then the final event, then the end.
  const stream = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/logs/stream`,
    headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream' },
  });
  assert.equal(stream.statusCode, 200);
  assert.match(String(stream.headers['content-type']), /text\/event-stream/);
  const events = stream.body
    .split('\n\n')
    .filter((b) => b.includes('data:'))
    .map((b) =>
      JSON.parse(
        b
          .split('\n')
          .find((l) => l.startsWith('data:'))!
          .slice(5),
      ),
    );
  assert.ok(events.length >= 3);
  assert.deepEqual(events.at(-1), { ...events.at(-1), completed: true, status: 'success' });
  assert.ok(events.slice(0, -1).every((e, i) => e.sequence === i + 1 && e.completed === false));
  // Resuming after the second line replays only what follows.
  const resumed = await app.inject({
    method: 'GET',
    url: `/api/backup/records/${record.id}/logs/stream`,
    headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream', 'last-event-id': '2' },
  });
  const resumedIds = [...resumed.body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(resumedIds[0], 3);
  assert.equal(resumedIds.length, events.length - 2);

  // Metrics count the run.
  const metrics = await app.inject({ method: 'GET', url: '/metrics' });
  assert.match(metrics.body, /backplane_backup_runs_total\{type="file",status="success",trigger="manual"\} 1/);
  assert.match(metrics.body, /backplane_backups_running 0/);

  // Audit has the manual run.
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'manual_run'));
});

test('records: list filters and paging, lock blocks delete, delete removes the object before the row', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'hello');
  const target = await diskTarget(t, app, admin);
  const a = await createTask(app, admin, {
    name: 'a',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    compression: 'gzip',
    encrypt: false,
  });
  const b = await createTask(app, admin, {
    name: 'b',
    type: 'file',
    sourcePaths: [join(src, 'f.txt'), join(src, 'missing-dir')],
    storageTargetIds: [target.id],
  });
  const r1 = await runAndWait(app, admin, a.id);
  const r2 = await runAndWait(app, admin, a.id);
  const r3 = await runAndWait(app, admin, b.id);
  assert.equal(r1.status, 'success');
  assert.match(r1.storagePath, /\.tar\.gz$/);
  assert.equal(r3.status, 'success', 'a missing path beside a present one is a warning, not a failure');
  assert.match(r3.logContent, /WARN .*missing-dir/);

  const all = await call(app, 'GET', '/api/backup/records', { token: admin });
  assert.equal(all.headers['x-total-count'], '3');
  assert.deepEqual(
    all.json.data.map((r: { id: number }) => r.id),
    [r3.id, r2.id, r1.id],
    'newest first',
  );
  const byTask = await call(app, 'GET', '/api/backup/records', {
    token: admin,
    query: { taskId: String(a.id), limit: '1', offset: '1' },
  });
  assert.equal(byTask.headers['x-total-count'], '2');
  assert.deepEqual(
    byTask.json.data.map((r: { id: number }) => r.id),
    [r1.id],
  );
  const failed = await call(app, 'GET', '/api/backup/records', { token: admin, query: { status: 'failed' } });
  assert.equal(failed.json.data.length, 0);
  const future = await call(app, 'GET', '/api/backup/records', {
    token: admin,
    query: { dateFrom: new Date(Date.now() + 60_000).toISOString() },
  });
  assert.equal(future.json.data.length, 0);
  const badStatus = await call(app, 'GET', '/api/backup/records', { token: admin, query: { status: 'bogus' } });
  assert.equal(badStatus.status, 400);
  const badRange = await call(app, 'GET', '/api/backup/records', {
    token: admin,
    query: { dateFrom: '2026-02-01T00:00:00Z', dateTo: '2026-01-01T00:00:00Z' },
  });
  assert.equal(badRange.json.code, 'BACKUP_RECORD_FILTER_INVALID');

  const lock = await call(app, 'PUT', `/api/backup/records/${r1.id}/lock`, { token: admin, body: { locked: true } });
  assert.equal(lock.status, 200);
  assert.equal(lock.json.data.locked, true);
  const refused = await call(app, 'DELETE', `/api/backup/records/${r1.id}`, { token: admin });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.code, 'BACKUP_RECORD_LOCKED');
  await stat(join(target.dir, r1.storagePath));

  const del = await call(app, 'DELETE', `/api/backup/records/${r2.id}`, { token: admin });
  assert.equal(del.status, 200, del.body);
  await assert.rejects(stat(join(target.dir, r2.storagePath)), { code: 'ENOENT' });
  assert.equal((await call(app, 'GET', `/api/backup/records/${r2.id}`, { token: admin })).status, 404);

  const batch = await call(app, 'POST', '/api/backup/records/batch-delete', {
    token: admin,
    body: { ids: [r1.id, r3.id, 999999] },
  });
  assert.equal(batch.status, 200, batch.body);
  assert.deepEqual(
    batch.json.data.results.map((r: { id: number; success: boolean; code: string | null }) => [
      r.id,
      r.success,
      r.code,
    ]),
    [
      [r1.id, false, 'BACKUP_RECORD_LOCKED'],
      [r3.id, true, null],
      [999999, false, 'BACKUP_RECORD_NOT_FOUND'],
    ],
  );
  assert.equal(
    (await call(app, 'POST', '/api/backup/records/batch-delete', { token: admin, body: { ids: [] } })).json.code,
    'BACKUP_RECORD_BATCH_INVALID',
  );

  const viewer = await userWithRole(app, admin, 'viewer');
  assert.equal(
    (await call(app, 'PUT', `/api/backup/records/${r1.id}/lock`, { token: viewer.token, body: { locked: false } }))
      .status,
    403,
  );
  assert.equal((await call(app, 'GET', `/api/backup/records/${r1.id}`, { token: viewer.token })).status, 200);
  const none = await call(app, 'GET', '/api/backup/records/12345/download', { token: admin });
  assert.equal(none.json.code, 'BACKUP_RECORD_NOT_FOUND');
  const dbContents = await call(app, 'GET', `/api/backup/records/${r1.id}/contents`, { token: admin });
  assert.equal(dbContents.status, 200);
});
