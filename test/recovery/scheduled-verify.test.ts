import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { TestClock } from '../helpers/test-clock.ts';

/** An app on a test clock with a file task verified every second (its backups run by hand). */
async function verifiedTask(t: TestContext, name: string, verifyMode: 'quick' | 'deep') {
  const clock = new TestClock();
  const { app } = await build(t, { build: { clock } });
  const admin = await setupAdmin(app);
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name,
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    verifyEnabled: true,
    verifyCronExpr: '* * * * * *',
    verifyMode,
  });
  return { clock, app, admin, task };
}

test('a task with verification enabled is verified on its own cron, in its mode, by the system', async (t) => {
  const { clock, app, admin, task } = await verifiedTask(t, 'checked', 'deep');
  // Before any backup, a fire is skipped (nothing to verify) and audited.
  await app.diContainer.cradle.scheduler.fireVerification(task.id);
  const skipped = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'verify_record' } });
  assert.ok(
    skipped.json.data.items.some(
      (e: { action: string; detail: string }) => e.action === 'scheduled_skip' && /VERIFY_NO_SOURCE/.test(e.detail),
    ),
  );

  const backup = await runAndWait(app, admin, task.id);
  await clock.advance(1000);
  const found = (
    await call(app, 'GET', '/api/verify/records', { token: admin, query: { backupRecordId: String(backup.id) } })
  ).json.data[0];
  assert.ok(found, 'a scheduled verification within the second');
  assert.equal(found.triggeredBy, 'system');
  assert.equal(found.mode, 'deep');
  assert.equal(
    (await call(app, 'PUT', `/api/backup/tasks/${task.id}/toggle`, { token: admin, body: { enabled: false } })).status,
    200,
  );
  await app.diContainer.cradle.verifications.idle();
  const done = (await call(app, 'GET', `/api/verify/records/${found.id}`, { token: admin })).json.data;
  assert.equal(done.status, 'success', done.errorMessage);
});

test('a task with only a verification cron is scheduled once after a reload and not at all after stop', async (t) => {
  const { clock, app, admin, task } = await verifiedTask(t, 'verify-only', 'quick');
  const backup = await runAndWait(app, admin, task.id);
  const { scheduler, verifications } = app.diContainer.cradle;
  const count = async () => {
    await verifications.idle();
    return (
      await call(app, 'GET', '/api/verify/records', { token: admin, query: { backupRecordId: String(backup.id) } })
    ).json.data.length as number;
  };

  await scheduler.reload();
  await clock.advance(1000);
  assert.equal(await count(), 1, 'one fire per second, not one per reload');

  scheduler.stop();
  await clock.advance(5000);
  assert.equal(await count(), 1, 'a stopped scheduler fires nothing');
});
