import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, setupAdmin } from '../helpers/build.ts';
import { BackupTaskEntity } from '../../core/db/entities/backup-task.ts';
import { VerifyRecordEntity } from '../../core/db/entities/recovery-records.ts';
import { NotificationEventEntity } from '../../core/db/entities/notification.ts';

test('the SLA scan announces an RTO a recent deep verification exceeded, once per 6 h; an old measurement proves nothing', async (t) => {
  const { app } = await build(t);
  await setupAdmin(app);
  const em = app.diContainer.cradle.orm.em.fork();
  const now = new Date();
  const slow = em.create(BackupTaskEntity, { name: 'slow-restore', type: 'file', rtoMinutes: 5 });
  const stale = em.create(BackupTaskEntity, { name: 'stale-proof', type: 'file', rtoMinutes: 5 });
  const quick = em.create(BackupTaskEntity, { name: 'quick-restore', type: 'file', rtoMinutes: 5 });
  await em.flush();
  const verify = (taskId: number, name: string, restoreMinutes: number, daysAgo: number) =>
    em.create(VerifyRecordEntity, {
      backupRecordId: 1,
      taskId,
      taskName: name,
      type: 'file',
      mode: 'deep',
      status: 'success',
      restoreMs: restoreMinutes * 60_000,
      startedAt: new Date(now.getTime() - daysAgo * 86_400_000),
      completedAt: new Date(now.getTime() - daysAgo * 86_400_000),
    });
  verify(slow.id, slow.name, 12, 1);
  verify(stale.id, stale.name, 12, 45);
  verify(quick.id, quick.name, 2, 1);
  await em.flush();

  const { slaScan } = app.diContainer.cradle;
  assert.equal(await slaScan.runOnce(now), 1);
  const events = await app.diContainer.cradle.orm.em.fork().find(NotificationEventEntity, { type: 'rto_exceeded' });
  assert.deepEqual(
    events.map((e) => e.subject),
    [`task:${slow.id}`],
  );
  assert.match(events[0]!.body, /12 minutes; the objective is 5 minutes/);
  assert.equal(await slaScan.runOnce(new Date(now.getTime() + 3600_000)), 0, 'not again within 6 h');
  assert.equal(await slaScan.runOnce(new Date(now.getTime() + 7 * 3600_000)), 1, 'again after 6 h while it lasts');
});
