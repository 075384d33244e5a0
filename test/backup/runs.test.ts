import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile, readdir, mkdir } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { BackupRecordEntity, BackupRecordCopyEntity } from '../../core/db/entities/backup-record.ts';
import { BackupTaskEntity } from '../../core/db/entities/backup-task.ts';
import { diskTarget, createTask, runAndWait } from './helpers.ts';
import { TestClock } from '../helpers/test-clock.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { waitFor } from '../helpers/agent-process.ts';

async function source(t: Parameters<typeof tempDir>[0]): Promise<string> {
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'data');
  return src;
}

test('manual runs: overlap refused, maintenance windows enforced, operators only, unknown task 404', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'once',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });

  const first = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(first.status, 200, first.body);
  const second = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(second.status, 409);
  assert.equal(second.json.code, 'BACKUP_TASK_ALREADY_RUNNING');
  const busyDelete = await call(app, 'DELETE', `/api/backup/tasks/${task.id}`, { token: admin });
  assert.equal(busyDelete.json.code, 'BACKUP_TASK_ALREADY_RUNNING', 'a task with a run in flight is not deleted');
  await app.diContainer.cradle.backupRuns.idle();

  // A window that is closed now (read in UTC, the zone set here).
  assert.equal((await call(app, 'PUT', '/api/settings', { token: admin, body: { timezone: 'UTC' } })).status, 200);
  const h = (new Date().getUTCHours() + 2) % 24;
  const hh = String(h).padStart(2, '0');
  const windowed = await createTask(app, admin, {
    name: 'windowed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    maintenanceWindows: `time=${hh}:00-${hh}:30`,
  });
  const outside = await call(app, 'POST', `/api/backup/tasks/${windowed.id}/run`, { token: admin });
  assert.equal(outside.status, 400);
  assert.equal(outside.json.code, 'BACKUP_TASK_OUTSIDE_WINDOW');

  const viewer = await userWithRole(app, admin, 'viewer');
  assert.equal((await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: viewer.token })).status, 403);
  assert.equal(
    (await call(app, 'POST', '/api/backup/tasks/424242/run', { token: admin })).json.code,
    'BACKUP_TASK_NOT_FOUND',
  );

  const batch = await call(app, 'POST', '/api/backup/tasks/batch/run', {
    token: admin,
    body: { ids: [task.id, windowed.id, 424242] },
  });
  assert.equal(batch.status, 200, batch.body);
  assert.deepEqual(
    batch.json.data.map((r: { id: number; success: boolean; code?: string }) => [r.id, r.success, r.code ?? null]),
    [
      [task.id, true, null],
      [windowed.id, false, 'BACKUP_TASK_OUTSIDE_WINDOW'],
      [424242, false, 'BACKUP_TASK_NOT_FOUND'],
    ],
  );
  assert.ok(Number.isInteger(batch.json.data[0].recordId));
  await app.diContainer.cradle.backupRuns.idle();
});

test('the concurrency limit queues runs: with one slot, the second starts after the first ends', async (t) => {
  const { app } = await build(t, { config: { maxConcurrent: 1 } });
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const a = await createTask(app, admin, { name: 'a', type: 'file', sourcePaths: [src], storageTargetIds: [disk.id] });
  const b = await createTask(app, admin, { name: 'b', type: 'file', sourcePaths: [src], storageTargetIds: [disk.id] });
  const ra = (await call(app, 'POST', `/api/backup/tasks/${a.id}/run`, { token: admin })).json.data.recordId;
  const rb = (await call(app, 'POST', `/api/backup/tasks/${b.id}/run`, { token: admin })).json.data.recordId;
  await app.diContainer.cradle.backupRuns.idle();
  const [recA, recB] = await Promise.all(
    [ra, rb].map(async (id) => (await call(app, 'GET', `/api/backup/records/${id}`, { token: admin })).json.data),
  );
  assert.equal(recA.status, 'success');
  assert.equal(recB.status, 'success');
  assert.ok(
    Date.parse(recB.startedAt) >= Date.parse(recA.completedAt),
    `b started ${recB.startedAt}, a completed ${recA.completedAt}`,
  );
});

test('a dependent task runs after its upstream succeeds', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const up = await createTask(app, admin, {
    name: 'up',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const down = await createTask(app, admin, {
    name: 'down',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    dependsOnTaskIds: [up.id],
  });
  await runAndWait(app, admin, up.id);
  await app.diContainer.cradle.backupRuns.idle();
  const records = await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(down.id) } });
  assert.equal(records.json.data.length, 1);
  assert.equal(records.json.data[0].trigger, 'dependency');
  assert.equal(records.json.data[0].status, 'success');
});

test('the scheduler fires enabled tasks on their cron and stops when the task is disabled', async (t) => {
  const clock = new TestClock();
  const { app } = await build(t, { build: { clock } });
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'every-second',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '* * * * * *',
  });
  await clock.advance(1000);
  const scheduled = (
    await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } })
  ).json.data;
  assert.equal(scheduled.length, 1, 'a scheduled run within the second');
  assert.equal(scheduled[0].trigger, 'scheduled');
  assert.equal(scheduled[0].triggeredBy, 'system');
  assert.equal(
    (await call(app, 'PUT', `/api/backup/tasks/${task.id}/toggle`, { token: admin, body: { enabled: false } })).status,
    200,
  );
  await app.diContainer.cradle.backupRuns.idle();
  const before = (await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } }))
    .headers['x-total-count'];
  await clock.advance(1500);
  const after = (await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } }))
    .headers['x-total-count'];
  assert.equal(after, before, 'no runs once disabled');
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'scheduled_run'));
});

test('a fire is claimed once: the same fire time fired again (another master leading for a moment) runs nothing', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'claimed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '0 3 * * *',
  });
  const { scheduler, backupRuns } = app.diContainer.cradle;
  const at = new Date(Date.now() - 1000);
  await Promise.all([scheduler.fire(task.id, 'scheduled', at), scheduler.fire(task.id, 'scheduled', at)]);
  await backupRuns.idle();
  await scheduler.fire(task.id, 'catch_up', at);
  await backupRuns.idle();
  const records = await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } });
  assert.equal(records.json.data.length, 1, 'one run for one fire time');
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  assert.equal(
    audit.json.data.items.filter((e: { action: string }) => e.action === 'scheduled_skip').length,
    0,
    'the repeated fires were not attempts: nothing to skip',
  );
  // A later fire time runs again.
  await scheduler.fire(task.id, 'scheduled', new Date());
  await backupRuns.idle();
  assert.equal(
    (await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } })).json.data
      .length,
    2,
  );
});

test('a scheduled fire outside the window or during a run is skipped and audited, never queued', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  await call(app, 'PUT', '/api/settings', { token: admin, body: { timezone: 'UTC' } });
  const hh = String((new Date().getUTCHours() + 3) % 24).padStart(2, '0');
  const task = await createTask(app, admin, {
    name: 'closed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '0 3 * * *',
    maintenanceWindows: `time=${hh}:00-${hh}:10`,
  });
  await app.diContainer.cradle.scheduler.fire(task.id, 'scheduled', new Date());
  const records = await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(task.id) } });
  assert.equal(records.json.data.length, 0);
  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'backup_task' } });
  const skip = audit.json.data.items.find((e: { action: string }) => e.action === 'scheduled_skip');
  assert.ok(skip);
  assert.match(skip.detail, /BACKUP_TASK_OUTSIDE_WINDOW/);
});

test('after downtime a task gets exactly one catch-up run, however many fires it missed', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const admin = await setupAdmin(first.app);
  const src = await source(t);
  const disk = await diskTarget(t, first.app, admin);
  const missed = await createTask(first.app, admin, {
    name: 'hourly',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '0 * * * *',
  });
  const fine = await createTask(first.app, admin, {
    name: 'yearly',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '0 0 1 1 *',
  });
  await first.app.close();

  // Pretend both were created a day ago and the master was down since: 24 missed hourly fires.
  const { openOrm } = await import('../../core/db/orm.ts');
  const db = await openOrm(first.config.databaseUrl);
  const dayAgo = new Date(Date.now() - 24 * 3600_000);
  await db.em.fork().nativeUpdate(BackupTaskEntity, { id: missed.id }, { createdAt: dayAgo, lastScheduledAt: dayAgo });
  await db.em.fork().nativeUpdate(BackupTaskEntity, { id: fine.id }, { createdAt: new Date(), lastScheduledAt: null });
  await db.close();

  const second = await build(t, { dataDir });
  await second.app.diContainer.cradle.backupRuns.idle();
  const token = (
    await call(second.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-password-1' } })
  ).json.data.token;
  const records = await call(second.app, 'GET', '/api/backup/records', { token });
  assert.deepEqual(
    records.json.data.map((r: { taskId: number; trigger: string; status: string }) => [r.taskId, r.trigger, r.status]),
    [[missed.id, 'catch_up', 'success']],
  );
  const audit = await call(second.app, 'GET', '/api/audit-logs', { token, query: { category: 'backup_task' } });
  assert.equal(audit.json.data.items.filter((e: { action: string }) => e.action === 'catch_up_run').length, 1);
});

test('at start-up a record left running by a crash becomes failed, its partial object is removed, queued ones run', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const admin = await setupAdmin(first.app);
  const src = await source(t);
  const disk = await diskTarget(t, first.app, admin);
  const task = await createTask(first.app, admin, {
    name: 'crashy',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const other = await createTask(first.app, admin, {
    name: 'waiting',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  await first.app.close();

  // What a killed master leaves: a running record whose upload completed its object, and a queued one.
  const { openOrm } = await import('../../core/db/orm.ts');
  const db = await openOrm(first.config.databaseUrl);
  const em = db.em.fork();
  const key = 'crashy/2026/11/21/1-20261121T000000Z.tar.zst.age';
  const running = em.create(BackupRecordEntity, {
    taskId: task.id,
    taskName: 'crashy',
    type: 'file',
    status: 'running',
    startedAt: new Date(),
    storagePath: key,
    fileName: '1.tar.zst.age',
  });
  const queued = em.create(BackupRecordEntity, {
    taskId: other.id,
    taskName: 'waiting',
    type: 'file',
    status: 'queued',
  });
  await em.flush();
  em.create(BackupRecordCopyEntity, {
    recordId: running.id,
    storageTargetId: disk.id,
    storageTargetName: 'disk',
    storagePath: key,
    status: 'pending',
  });
  await em.flush();
  await em.nativeUpdate(BackupTaskEntity, { id: task.id }, { lastStatus: 'running' });
  await db.close();
  await mkdir(dirname(join(disk.dir, key)), { recursive: true });
  await writeFile(join(disk.dir, key), 'half an artifact');

  const second = await build(t, { dataDir });
  await second.app.diContainer.cradle.backupRuns.idle();
  const token = (
    await call(second.app, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'admin-password-1' } })
  ).json.data.token;
  const crashed = (await call(second.app, 'GET', `/api/backup/records/${running.id}`, { token })).json.data;
  assert.equal(crashed.status, 'failed');
  assert.match(crashed.errorMessage, /master stopped while this backup was running/);
  assert.ok(crashed.completedAt);
  assert.equal(crashed.storageUploadResults[0].status, 'deleted');
  assert.deepEqual(
    (await readdir(disk.dir)).filter((n) => n === 'crashy'),
    [],
    'the partial object (and its empty folders) are gone',
  );
  assert.equal(
    (await call(second.app, 'GET', `/api/backup/tasks/${task.id}`, { token })).json.data.lastStatus,
    'failed',
  );
  const resumed = (await call(second.app, 'GET', `/api/backup/records/${queued.id}`, { token })).json.data;
  assert.equal(resumed.status, 'success', 'a queued record runs after the restart');
});

test('several masters: the leader finds a schedule change no notice told it of (a minute at most), and only such a change', {
  timeout: 60_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_schedule_watch');
  if (!url) return;
  const { app } = await build(t, { config: { databaseUrl: url } });
  const admin = await setupAdmin(app);
  assert.equal((await call(app, 'PUT', '/api/settings', { token: admin, body: { timezone: 'UTC' } })).status, 200);
  const src = await source(t);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'watched',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    cronExpr: '0 3 * * *',
  });
  const { scheduler, orm, cluster } = app.diContainer.cradle;
  assert.equal(cluster.leader, true, 'the only master leads');
  await waitFor(
    'the notice of the new task',
    async () => (scheduler.nextRun(task.id)?.getUTCMinutes() === 0 ? true : undefined),
    10_000,
  );
  await scheduler.checkSchedule();
  // Changed behind the masters' backs: no notice.
  await orm.em.getConnection().execute("update backup_tasks set cron_expr = '17 3 * * *' where id = ?", [task.id]);
  assert.equal(await scheduler.checkSchedule(), true);
  assert.equal(scheduler.nextRun(task.id)?.getUTCMinutes(), 17);
  // A run changes the task's row (its last status) but not its schedule: no reload.
  await runAndWait(app, admin, task.id);
  assert.equal(await scheduler.checkSchedule(), false);
});
