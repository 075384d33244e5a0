import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';

test('a running record shows its last progress in the list, the detail and the dashboard; none once it ended', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const viewer = await userWithRole(app, admin, 'viewer');
  const em = app.diContainer.cradle.orm.em.fork();
  const record = em.create(BackupRecordEntity, {
    nodeId: 0,
    taskId: 1,
    taskName: 'busy',
    type: 'file',
    status: 'running',
    startedAt: new Date(),
    storagePath: '',
    fileName: '1-20261127T000000Z.tar.zst.age',
  });
  await em.flush();
  const { recordLogs } = app.diContainer.cradle;
  await recordLogs.open(record.id, 'running');

  const progressOf = async () => {
    const list = await call(app, 'GET', '/api/backup/records', { token: viewer.token });
    const detail = await call(app, 'GET', `/api/backup/records/${record.id}`, { token: viewer.token });
    const stats = await call(app, 'GET', '/api/dashboard/stats', { token: viewer.token });
    assert.equal(list.status, 200, list.body);
    const fromList = list.json.data.find((r: { id: number }) => r.id === record.id).progress;
    assert.deepEqual(detail.json.data.progress, fromList, 'the detail says the same');
    assert.deepEqual(
      stats.json.data.recentRecords.find((r: { id: number }) => r.id === record.id).progress,
      fromList,
      'and the dashboard',
    );
    return fromList;
  };
  assert.equal(await progressOf(), null, 'no progress reported yet');
  recordLogs.progress(record.id, { bytesRead: 1000, bytesStored: 400, speedBps: 500, elapsedSeconds: 2 }, 'first');
  recordLogs.progress(record.id, { bytesRead: 4096, bytesStored: 1500, speedBps: 800, elapsedSeconds: 5 }, 'second');
  assert.deepEqual(
    await progressOf(),
    { bytesRead: 4096, bytesStored: 1500, speedBps: 800, elapsedSeconds: 5 },
    'the last frame',
  );

  record.status = 'success';
  record.completedAt = new Date();
  await em.flush();
  await recordLogs.close(record.id, 'success');
  assert.equal(await progressOf(), null, 'an ended run has no progress');
  assert.equal(recordLogs.lastProgress(record.id), undefined, 'and the hub forgot it');
});
