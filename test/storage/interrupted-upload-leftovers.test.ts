import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, nodeWithToken, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { BackupRecordEntity, BackupRecordCopyEntity } from '../../core/db/entities/backup-record.ts';
import { ReplicationRecordEntity } from '../../core/db/entities/recovery-records.ts';

/** Every file below `dir`, as sorted paths relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

test('an agent run the master gives up on (lease lapsed) leaves no temporary object on a target the master reaches', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const disk = await diskTarget(t, app, token);
  const node = await nodeWithToken(app);
  const em = app.diContainer.cradle.orm.em.fork();
  const key = 'edge/2026/11/23/9-20261123T000000Z.tar.zst.age';
  const record = em.create(BackupRecordEntity, {
    nodeId: node.id,
    taskId: 1,
    taskName: 'edge',
    type: 'file',
    status: 'running',
    startedAt: new Date(),
    storagePath: key,
    fileName: '9-20261123T000000Z.tar.zst.age',
  });
  await em.flush();
  em.create(BackupRecordCopyEntity, {
    recordId: record.id,
    storageTargetId: disk.id,
    storageTargetName: 'disk',
    storagePath: key,
    status: 'pending',
  });
  await em.flush();
  // The agent's direct upload, cut off when it went silent.
  await strandInFolder(disk.dir)(key, new Date());
  assert.equal((await files(disk.dir)).length, 1);

  assert.equal(
    await app.diContainer.cradle.remoteBackups.fail(record.id, 'the agent stopped reporting (its lease lapsed)'),
    true,
  );
  assert.deepEqual(await files(disk.dir), [], 'the temporary object went with the record');
});

test('a replication the master was killed in the middle of leaves neither a temporary nor an unreferenced object on its destination', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const token = await setupAdmin(first.app);
  const source = await diskTarget(t, first.app, token, 'source');
  const dest = await diskTarget(t, first.app, token, 'dest');
  const task = await createTask(first.app, token, {
    name: 'copied',
    type: 'file',
    sourcePaths: [source.dir],
    storageTargetIds: [source.id],
  });
  const em = first.app.diContainer.cradle.orm.em.fork();
  const interrupted = 'copied/2026/11/23/4-20261123T000000Z.tar.zst.age';
  const completed = 'copied/2026/11/23/5-20261123T000000Z.tar.zst.age';
  for (const key of [interrupted, completed]) {
    const backup = em.create(BackupRecordEntity, {
      taskId: task.id,
      taskName: 'copied',
      type: 'file',
      status: 'success',
      storagePath: key,
      fileName: key.split('/').pop()!,
    });
    await em.flush();
    em.create(ReplicationRecordEntity, {
      backupRecordId: backup.id,
      taskId: task.id,
      taskName: 'copied',
      destTargetId: dest.id,
      destTargetName: 'dest',
      storagePath: key,
      checksum: '',
      triggeredBy: 'admin',
      status: 'running',
      startedAt: new Date(),
    });
  }
  await em.flush();
  await first.app.close();
  // One killed mid-upload (its temporary), one killed after its upload but before its copy row (a whole object).
  await strandInFolder(dest.dir)(interrupted, new Date());
  await strandInFolder(dest.dir)(completed, new Date());
  await writeFile(join(dest.dir, completed), 'a whole artifact no copy row points at');
  assert.equal((await files(dest.dir)).length, 3);

  const second = await build(t, { dataDir });
  await second.app.ready();
  assert.deepEqual(await files(dest.dir), [], 'nothing of the interrupted replications stays on the destination');
  const records = await second.app.diContainer.cradle.orm.em.fork().find(ReplicationRecordEntity, {});
  assert.deepEqual(
    records.map((r) => r.status),
    ['failed', 'failed'],
  );
});
