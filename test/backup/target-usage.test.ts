import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';

test('target usage counts stored records; a target holding artifacts cannot be deleted; a full quota fails that copy only', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'x'.repeat(10_000));
  const main = await diskTarget(t, app, admin, 'main');
  const small = await diskTarget(t, app, admin, 'small');
  assert.equal(
    (await call(app, 'PUT', `/api/storage-targets/${small.id}`, { token: admin, body: { quotaBytes: 1 } })).status,
    200,
  );
  const task = await createTask(app, admin, {
    name: 'q',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [main.id, small.id],
    maxBackups: 0,
  });

  const first = await runAndWait(app, admin, task.id);
  assert.equal(first.status, 'success', 'under quota before the first artifact');
  const second = await runAndWait(app, admin, task.id);
  assert.equal(second.status, 'partial');
  const smallResult = second.storageUploadResults.find(
    (r: { storageTargetName: string }) => r.storageTargetName === 'small',
  );
  assert.equal(smallResult.status, 'failed');
  assert.match(smallResult.error, /quota exceeded/);
  assert.match(second.errorMessage, /small: quota exceeded/);

  const usage = await call(app, 'GET', `/api/storage-targets/${main.id}/usage`, { token: admin });
  assert.equal(usage.json.data.recordCount, 2);
  assert.equal(usage.json.data.totalSize, first.fileSize + second.fileSize);
  const smallUsage = await call(app, 'GET', `/api/storage-targets/${small.id}/usage`, { token: admin });
  assert.equal(smallUsage.json.data.recordCount, 1);

  // Unlink the target from the task: its stored artifacts still keep it.
  assert.equal(
    (await call(app, 'PUT', `/api/backup/tasks/${task.id}`, { token: admin, body: { storageTargetIds: [main.id] } }))
      .status,
    200,
  );
  const refused = await call(app, 'DELETE', `/api/storage-targets/${small.id}`, { token: admin });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.code, 'STORAGE_TARGET_IN_USE');
  assert.equal((await call(app, 'DELETE', `/api/backup/records/${first.id}`, { token: admin })).status, 200);
  assert.equal(
    (await call(app, 'DELETE', `/api/storage-targets/${small.id}`, { token: admin })).status,
    200,
    'free once no record holds a copy there',
  );
});
