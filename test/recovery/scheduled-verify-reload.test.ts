import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { TestClock } from '../helpers/test-clock.ts';

test('a task with only a verification cron is scheduled once after a reload and not at all after stop', async (t) => {
  const clock = new TestClock();
  const { app } = await build(t, { build: { clock } });
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const disk = await diskTarget(t, app, admin);
  // No backup cron: backups are run by hand, verification has its own schedule.
  const task = await createTask(app, admin, { name: 'verify-only', type: 'file', sourcePaths: [src], storageTargetIds: [disk.id], verifyEnabled: true, verifyCronExpr: '* * * * * *', verifyMode: 'quick' });
  const backup = await runAndWait(app, admin, task.id);
  const { scheduler, verifications } = app.diContainer.cradle;
  const count = async () => {
    await verifications.idle();
    return (await call(app, 'GET', '/api/verify/records', { token: admin, query: { backupRecordId: String(backup.id) } })).json.data.length as number;
  };

  await scheduler.reload();
  await clock.advance(1000);
  assert.equal(await count(), 1, 'one fire per second, not one per reload');

  scheduler.stop();
  await clock.advance(5000);
  assert.equal(await count(), 1, 'a stopped scheduler fires nothing');
});
