import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { postgresUrl, requireOrSkip, scratchPostgres } from '../helpers/databases.ts';
import { stalledDatabase, type StalledDatabase } from '../helpers/stalled-postgres.ts';
import { waitFor } from '../helpers/agent-process.ts';
import { filesUnder } from '../engine/helpers.ts';
import { diskTarget, createTask } from './helpers.ts';

/**
 * Cancel and time limits on the master: a real pg_dump waiting on a table lock is a run that
 * would never end by itself.
 */

async function startRun(app: FastifyInstance, token: string, taskId: number): Promise<number> {
  const res = await call(app, 'POST', `/api/backup/tasks/${taskId}/run`, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data.recordId as number;
}

async function recordOf(app: FastifyInstance, token: string, id: number): Promise<any> {
  const res = await call(app, 'GET', `/api/backup/records/${id}`, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

/** Waits until the record runs and its pg_dump is alive (blocked on the lock). */
async function stalled(app: FastifyInstance, token: string, id: number, db: StalledDatabase): Promise<number[]> {
  return waitFor('the dump to start and stall', async () => {
    const pids = await db.dumpPids();
    return pids.length > 0 && (await recordOf(app, token, id)).status === 'running' ? pids : undefined;
  });
}

function pgTask(db: StalledDatabase, targetId: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: `Stalled ${db.name}`,
    type: 'postgresql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbName: db.name,
    storageTargetIds: [targetId],
    ...extra,
  };
}

test('cancelling a running backup whose pg_dump waits on a lock ends it cancelled, kills pg_dump and leaves no object; a queued run cancels too', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const db = await stalledDatabase(t, url);
  const { app } = await build(t, { config: { maxConcurrent: 1 } });
  const token = await setupAdmin(app);
  const operator = await userWithRole(app, token, 'operator');
  const viewer = await userWithRole(app, token, 'viewer');
  const target = await diskTarget(t, app, token);
  const events: Array<{ type: string; fields?: Record<string, unknown> }> = [];
  t.after(app.diContainer.cradle.events.subscribe((e) => events.push(e as never)));

  const task = await createTask(app, token, pgTask(db, target.id));
  const id = await startRun(app, token, task.id);
  await stalled(app, token, id, db);

  // With the only slot taken, a second task's run waits in the queue.
  const src = await tempDir(t);
  const fileTask = await createTask(app, token, {
    name: 'Waiting',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
  });
  const queuedId = await startRun(app, token, fileTask.id);
  assert.equal((await recordOf(app, token, queuedId)).state, 'queued');

  assert.equal((await call(app, 'POST', `/api/backup/records/${id}/cancel`)).status, 401);
  const refused = await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token: viewer.token });
  assert.equal(refused.status, 403);
  assert.equal(refused.json.code, 'AUTH_FORBIDDEN');

  const queued = await call(app, 'POST', `/api/backup/records/${queuedId}/cancel`, { token: operator.token });
  assert.equal(queued.status, 200, queued.body);
  assert.equal(queued.json.data.status, 'cancelled');
  assert.equal((await recordOf(app, token, queuedId)).startedAt, null, 'a cancelled queued run never starts');

  const res = await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token: operator.token });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  const record = await recordOf(app, token, id);
  assert.equal(record.status, 'cancelled');
  assert.match(record.errorMessage, /cancelled by operator-user/);
  assert.ok(
    record.storageUploadResults.every((c: any) => c.status !== 'success'),
    JSON.stringify(record.storageUploadResults),
  );
  assert.deepEqual(await filesUnder(target.dir), [], 'nothing is left on the target, not even a temporary file');
  await waitFor('pg_dump to exit', async () => ((await db.dumpPids()).length === 0 ? true : undefined), 10_000);

  const types = events.filter((e) => e.fields?.recordId === id).map((e) => e.type);
  assert.deepEqual(types, ['backup_cancelled']);
  const audit = await call(app, 'GET', '/api/audit-logs', {
    token,
    query: { category: 'backup_record', action: 'cancel' },
  });
  assert.deepEqual(
    audit.json.data.items.map((a: any) => [a.targetId, a.username]).sort(),
    [
      [String(id), 'operator-user'],
      [String(queuedId), 'operator-user'],
    ].sort(),
  );

  const again = await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token: operator.token });
  assert.equal(again.status, 409);
  assert.equal(again.json.code, 'BACKUP_RECORD_NOT_ACTIVE');
  const unknown = await call(app, 'POST', '/api/backup/records/999999/cancel', { token: operator.token });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.code, 'BACKUP_RECORD_NOT_FOUND');

  // The slot is free again: the task runs anew (and is stopped again, so the test ends).
  const next = await startRun(app, token, task.id);
  await stalled(app, token, next, db);
  assert.equal(
    (await call(app, 'POST', `/api/backup/records/${next}/cancel`, { token })).json.data.status,
    'cancelled',
  );
});

test('a finished backup cannot be cancelled (409)', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  const src = await tempDir(t);
  await writeFile(`${src}/a.txt`, 'a');
  const task = await createTask(app, token, {
    name: 'Quick',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
  });
  const id = await startRun(app, token, task.id);
  await app.diContainer.cradle.backupRuns.idle();
  assert.equal((await recordOf(app, token, id)).status, 'success');
  const res = await call(app, 'POST', `/api/backup/records/${id}/cancel`, { token });
  assert.equal(res.status, 409);
  assert.equal(res.json.code, 'BACKUP_RECORD_NOT_ACTIVE');
  assert.equal((await recordOf(app, token, id)).status, 'success');
  assert.equal((await filesUnder(target.dir)).length, 1, 'the artifact stays');
});

test('timeoutMinutes stops an overrunning run: failed with the reason, pg_dump gone, nothing stored', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const db = await stalledDatabase(t, url);
  // A limit "minute" of 200 ms, checked every 50 ms: the limit logic is the real one, only its unit is short.
  const { app } = await build(t, { config: { runLimitMinuteMs: 200, runLimitCheckMs: 50 } });
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  const events: string[] = [];
  t.after(app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const task = await createTask(app, token, pgTask(db, target.id, { timeoutMinutes: 2 }));
  assert.equal((await call(app, 'GET', `/api/backup/tasks/${task.id}`, { token })).json.data.timeoutMinutes, 2);
  const id = await startRun(app, token, task.id);
  const record = await waitFor('the time limit to stop the run', async () => {
    const r = await recordOf(app, token, id);
    return r.status === 'running' || r.status === 'queued' ? undefined : r;
  });
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /time limit of 2 minutes reached/);
  assert.ok(record.storageUploadResults.every((c: any) => c.status !== 'success'));
  assert.deepEqual(await filesUnder(target.dir), []);
  await waitFor('pg_dump to exit', async () => ((await db.dumpPids()).length === 0 ? true : undefined), 10_000);
  assert.ok(events.includes('backup_failed'), events.join(', '));
});

test('timeoutMinutes is validated (0..10080), shown, exported and imported', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  const base = { type: 'file', sourcePaths: ['/tmp'], storageTargetIds: [target.id] };
  for (const bad of [-1, 10_081]) {
    const res = await call(app, 'POST', '/api/backup/tasks', {
      token,
      body: { ...base, name: `bad ${bad}`, timeoutMinutes: bad },
    });
    assert.equal(res.status, 400, res.body);
    assert.equal(res.json.code, 'BACKUP_TASK_INVALID');
    assert.ok(JSON.stringify(res.json).includes('timeoutMinutes'));
  }
  const task = await createTask(app, token, { ...base, name: 'Limited', timeoutMinutes: 90 });
  const updated = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, { token, body: { timeoutMinutes: 10_080 } });
  assert.equal(updated.status, 200, updated.body);
  assert.equal(updated.json.data.timeoutMinutes, 10_080);
  const plain = await createTask(app, token, { ...base, name: 'Unlimited' });
  assert.equal((await call(app, 'GET', `/api/backup/tasks/${plain.id}`, { token })).json.data.timeoutMinutes, 0);

  const exported = await call(app, 'GET', '/api/backup/tasks/export', { token });
  assert.equal(exported.status, 200, exported.body);
  const file = exported.json;
  assert.deepEqual(
    file.tasks.map((x: any) => [x.name, x.timeoutMinutes]),
    [
      ['Limited', 10_080],
      ['Unlimited', 0],
    ],
  );
  const { app: other } = await build(t);
  const otherToken = await setupAdmin(other);
  await diskTarget(t, other, otherToken, 'disk');
  const imported = await call(other, 'POST', '/api/backup/tasks/import', { token: otherToken, body: file });
  assert.equal(imported.status, 200, imported.body);
  const list = (await call(other, 'GET', '/api/backup/tasks', { token: otherToken })).json.data;
  const limited = list.find((x: any) => x.name === 'Limited');
  assert.equal(
    (await call(other, 'GET', `/api/backup/tasks/${limited.id}`, { token: otherToken })).json.data.timeoutMinutes,
    10_080,
  );
});

test('several masters on PostgreSQL: a cancel asked on a master that does not run the backup stops it on the one that does', {
  timeout: 120_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_cancel_elsewhere');
  if (!url) return;
  // On the server's own database: the scratch one is dropped (its sessions ended) first when the test ends.
  const db = await stalledDatabase(t, postgresUrl());
  const secretKey = randomBytes(32).toString('hex');
  const first = await build(t, { config: { databaseUrl: url, secretKey } });
  const runner = first.app;
  const other = (
    await build(t, { config: { databaseUrl: url, secretKey, ageIdentityFile: join(first.dataDir, 'backup.agekey') } })
  ).app;
  const token = await setupAdmin(runner);
  const target = await diskTarget(t, runner, token);
  const task = await createTask(runner, token, pgTask(db, target.id));
  const id = await startRun(runner, token, task.id);
  await stalled(runner, token, id, db);

  const res = await call(other, 'POST', `/api/backup/records/${id}/cancel`, { token });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.status, 'cancelled');
  const record = await recordOf(other, token, id);
  assert.match(record.errorMessage, /cancelled by admin/);
  assert.deepEqual(await filesUnder(target.dir), [], 'nothing is left on the target');
  await waitFor('pg_dump to exit', async () => ((await db.dumpPids()).length === 0 ? true : undefined), 10_000);
});
