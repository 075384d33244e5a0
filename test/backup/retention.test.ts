import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

test('retention after each success: maxBackups keeps the newest, locked records are not counted, every copy goes', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const one = await diskTarget(t, app, admin, 'one');
  const two = await diskTarget(t, app, admin, 'two');
  const task = await createTask(app, admin, {
    name: 'kept',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [one.id, two.id],
    maxBackups: 2,
    retentionDays: 0,
  });

  const r1 = await runAndWait(app, admin, task.id);
  assert.equal(
    (await call(app, 'PUT', `/api/backup/records/${r1.id}/lock`, { token: admin, body: { locked: true } })).status,
    200,
  );
  const r2 = await runAndWait(app, admin, task.id);
  const r3 = await runAndWait(app, admin, task.id);
  const r4 = await runAndWait(app, admin, task.id);
  for (const r of [r1, r2, r3, r4]) assert.equal(r.status, 'success');

  const left = await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } });
  assert.deepEqual(
    left.json.data.map((r: { id: number }) => r.id),
    [r4.id, r3.id, r1.id],
    'two newest unlocked + the locked one',
  );
  // r2 is gone from both targets, the others are on both.
  for (const dir of [one.dir, two.dir]) {
    await assert.rejects(stat(join(dir, r2.storagePath)), { code: 'ENOENT' });
    for (const r of [r1, r3, r4]) await stat(join(dir, r.storagePath));
  }
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_record' } });
  const entry = audit.json.data.items.find(
    (e: { action: string; targetId: string }) => e.action === 'retention_delete' && e.targetId === String(r2.id),
  );
  assert.ok(entry, 'retention deletions are audited');
  assert.match(entry.detail, /beyond maxBackups \(2\)/);
});

test('maxBackups 0 and retentionDays 0 keep everything', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'all',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    maxBackups: 0,
    retentionDays: 0,
  });
  for (let i = 0; i < 4; i++) assert.equal((await runAndWait(app, admin, task.id)).status, 'success');
  const left = await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } });
  assert.equal(left.headers['x-total-count'], '4');
});

test('a copy that cannot be deleted keeps the row (marked), and the retry sweep finishes the job', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'stuck',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    maxBackups: 0,
  });
  const r1 = await runAndWait(app, admin, task.id);

  // The target's folder disappears (an unmounted disk): deletion cannot reach the object.
  await rename(disk.dir, `${disk.dir}.away`);
  t.after(() => rename(`${disk.dir}.away`, disk.dir).catch(() => undefined));
  const del = await call(app, 'DELETE', `/api/backup/records/${r1.id}`, { token: admin });
  assert.equal(del.status, 502);
  assert.equal(del.json.code, 'BACKUP_RECORD_DELETE_FAILED');
  const kept = await call(app, 'GET', `/api/backup/records/${r1.id}`, { token: admin });
  assert.equal(kept.status, 200, 'the row stays while its object may exist');
  assert.equal(kept.json.data.deletePending, true);
  assert.match(kept.json.data.storageUploadResults[0].error, /delete failed/);

  await rename(`${disk.dir}.away`, disk.dir);
  assert.equal(await app.diContainer.cradle.recordDeleter.retryPending(), 1);
  assert.equal((await call(app, 'GET', `/api/backup/records/${r1.id}`, { token: admin })).status, 404);
  await assert.rejects(stat(join(disk.dir, r1.storagePath)), { code: 'ENOENT' });
});
