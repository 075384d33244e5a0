import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { createTask, diskTarget, runAndWait } from './helpers.ts';

test("a record's download can name the copy: ?storageTargetId serves the copy on that target, or 404", async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const src = await tempDir(t);
  await mkdir(join(src, 'docs'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'two copies');
  const first = await diskTarget(t, app, token, 'first');
  const second = await diskTarget(t, app, token, 'second');
  const task = await createTask(app, token, {
    name: 'two',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [first.id, second.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success');
  const viewer = await userWithRole(app, token, 'viewer');

  const sha = (body: Buffer) => createHash('sha256').update(body).digest('hex');
  const download = (query?: Record<string, string>) =>
    app.inject({
      method: 'GET',
      url: `/api/backup/records/${record.id}/download`,
      query,
      headers: { authorization: `Bearer ${viewer.token}` },
    });
  for (const target of [first, second]) {
    const res = await download({ storageTargetId: String(target.id) });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(sha(res.rawPayload), record.checksum);
  }

  // The copy on the first target goes missing: asked for by name it fails; unnamed, the second serves.
  const copy = (record.storageUploadResults as { storageTargetId: number; storagePath: string }[]).find(
    (c) => c.storageTargetId === first.id,
  )!;
  await rm(join(first.dir, copy.storagePath));
  const named = await download({ storageTargetId: String(first.id) });
  assert.ok(named.statusCode >= 400, `the named copy is gone: ${named.statusCode}`);
  const unnamed = await download();
  assert.equal(unnamed.statusCode, 200);
  assert.equal(sha(unnamed.rawPayload), record.checksum);

  const none = await download({ storageTargetId: '999' });
  assert.equal(none.statusCode, 404);
  assert.equal(none.json().code, 'BACKUP_RECORD_COPY_NOT_FOUND');
  const bad = await download({ storageTargetId: 'x' });
  assert.equal(bad.statusCode, 400);
});
