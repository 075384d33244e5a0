import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { build, call, setupAdmin, tempDir, ADMIN } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { BackupRecordEntity } from '../../core/db/entities/backup-record.ts';
import { migrate, openOrm } from '../../core/db/orm.ts';
import { diskTarget, createTask } from './helpers.ts';

test('the database holds one queued or running record per task; finished ones beside it are fine', async (t) => {
  const { app } = await build(t);
  const em = app.diContainer.cradle.orm.em.fork();
  const base = { taskName: 'one', type: 'file' };
  em.create(BackupRecordEntity, { ...base, taskId: 7, status: 'success' });
  em.create(BackupRecordEntity, { ...base, taskId: 7, status: 'failed' });
  em.create(BackupRecordEntity, { ...base, taskId: 7, status: 'queued' });
  em.create(BackupRecordEntity, { ...base, taskId: 8, status: 'running' });
  await em.flush();
  const second = app.diContainer.cradle.orm.em.fork();
  second.create(BackupRecordEntity, { ...base, taskId: 7, status: 'running' });
  await assert.rejects(second.flush(), UniqueConstraintViolationException);
});

test('upgrading a database where a task has several active records keeps the newest and fails the others', async (t) => {
  const dir = await tempDir(t);
  const orm = await openOrm(`sqlite:${join(dir, 'db.sqlite')}`);
  t.after(() => orm.close());
  await orm.migrator.up({ to: 'Migration018InsightIndexes' });
  const sql = orm.em.getConnection();
  const row = (task: number, status: string): Promise<unknown> =>
    sql.execute(
      `insert into backup_records (task_id, task_name, type, status, queued_at) values (?, 'x', 'file', ?, ?)`,
      [task, status, Date.now()],
    );
  await row(1, 'running');
  await row(1, 'queued');
  await row(1, 'success');
  await row(2, 'queued');
  assert.deepEqual((await migrate(orm))[0], 'Migration019OneActiveBackup');
  const rows = (await sql.execute(
    'select id, task_id, status, error_message, completed_at from backup_records order by id',
  )) as { id: number; task_id: number; status: string; error_message: string; completed_at: number | null }[];
  assert.deepEqual(
    rows.map((r) => [r.task_id, r.status]),
    [
      [1, 'failed'],
      [1, 'queued'],
      [1, 'success'],
      [2, 'queued'],
    ],
  );
  assert.match(rows[0]!.error_message, /one active run per task/);
  assert.ok(
    Math.abs(Number(rows[0]!.completed_at) - Date.now()) < 60_000,
    "completed now, in the ORM's epoch milliseconds",
  );
});

test('on PostgreSQL, two masters asked to run one task at the same moment start it once: the other answers 409', {
  timeout: 120_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_one_active');
  if (!url) return;
  const secretKey = randomBytes(32).toString('hex');
  const first = await build(t, { config: { databaseUrl: url, secretKey } });
  const a = first.app;
  // Masters on one database share its keys (core/security/key-check.ts).
  const b = (
    await build(t, { config: { databaseUrl: url, secretKey, ageIdentityFile: join(first.dataDir, 'backup.agekey') } })
  ).app;
  const token = await setupAdmin(a);
  const login = await call(b, 'POST', '/api/auth/login', { body: ADMIN });
  assert.equal(login.status, 200, login.body);
  const tokenB = login.json.data.token as string;
  const src = await tempDir(t);
  await mkdir(join(src, 'docs'), { recursive: true });
  await writeFile(join(src, 'docs/a.txt'), 'a');
  const target = await diskTarget(t, a, token);
  const task = await createTask(a, token, {
    name: 'contended',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    compression: 'none',
    encrypt: false,
  });
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all([
      call(a, 'POST', `/api/backup/tasks/${task.id}/run`, { token }),
      call(b, 'POST', `/api/backup/tasks/${task.id}/run`, { token: tokenB }),
    ]);
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, 409], `round ${round}: ${answers.map((r) => r.body).join(' | ')}`);
    const refused = answers.find((r) => r.status === 409)!;
    assert.equal(refused.json.code, 'BACKUP_TASK_ALREADY_RUNNING');
    // The accepting master runs it; both are idle once it ended.
    await Promise.all([a.diContainer.cradle.backupRuns.idle(), b.diContainer.cradle.backupRuns.idle()]);
  }
  const em = a.diContainer.cradle.orm.em.fork();
  assert.equal(await em.count(BackupRecordEntity, { taskId: task.id }), 5, 'five rounds, five runs');
  assert.equal(await em.count(BackupRecordEntity, { taskId: task.id, status: 'success' }), 5);
});
