import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { build, setupAdmin, tempDir } from '../helpers/build.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { VerifyRecordEntity } from '../../core/db/entities/recovery-records.ts';
import { sandboxDatabase } from '../../core/recovery/verify-service.ts';

/**
 * What a master killed mid-run leaves outside the storage targets is removed when it starts
 * again: its scratch folder (dumps on their way into an archive, sandboxes) and the sandbox
 * database of a deep verification on the task's own server.
 */

test('start-up empties the scratch folder a killed master left behind', async (t) => {
  const dataDir = await tempDir(t);
  const tmp = join(dataDir, 'tmp');
  await mkdir(join(tmp, 'dumps-abc123'), { recursive: true });
  await writeFile(join(tmp, 'dumps-abc123', 'big.sql'), randomBytes(4096));
  await mkdir(join(tmp, 'verify-7', 'etc'), { recursive: true });
  await writeFile(join(tmp, 'verify-7', 'etc', 'hosts'), 'x');
  await writeFile(join(tmp, 'rclone-upload.part'), 'y');
  await build(t, { dataDir });
  assert.deepEqual(await readdir(tmp), []);
});

test('start-up drops the sandbox database of a deep verification a crash interrupted, and fails the record', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const u = new URL(url);
  const source = `bp_leftover_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const exists = async (db: string) =>
    (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [db])).rowCount === 1;
  let sandbox = '';
  t.after(async () => {
    for (const db of [source, sandbox]) if (db) await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin.end();
  });
  await admin.query(`CREATE DATABASE "${source}"`);
  const src = new pg.Client({
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    database: source,
  });
  await src.connect();
  await src.query('CREATE TABLE items (id int primary key); INSERT INTO items SELECT generate_series(1, 10)');
  await src.end();

  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const token = await setupAdmin(first.app);
  const target = await diskTarget(t, first.app, token);
  const task = await createTask(first.app, token, {
    name: 'pg-leftover',
    type: 'postgresql',
    dbHost: u.hostname,
    dbPort: Number(u.port || 5432),
    dbUser: decodeURIComponent(u.username),
    dbName: source,
    storageTargetIds: [target.id],
  });
  const record = await runAndWait(first.app, token, task.id);
  assert.equal(record.status, 'success', record.errorMessage);

  // The state a SIGKILL during a deep verification leaves: a running record, its sandbox database.
  const em = first.app.diContainer.cradle.orm.em.fork();
  const verify = em.create(VerifyRecordEntity, {
    backupRecordId: record.id,
    taskId: task.id,
    taskName: task.name,
    type: 'postgresql',
    mode: 'deep',
    status: 'running',
    triggeredBy: 'test',
    startedAt: new Date(),
  });
  await em.flush();
  sandbox = sandboxDatabase(verify);
  await admin.query(`CREATE DATABASE "${sandbox}"`);
  await first.app.close();

  const second = await build(t, { dataDir });
  assert.equal(await exists(sandbox), false, `${sandbox} was dropped at start-up`);
  const after = await second.app.diContainer.cradle.orm.em.fork().findOneOrFail(VerifyRecordEntity, { id: verify.id });
  assert.equal(after.status, 'failed');
  assert.match(after.errorMessage, /master stopped/);
});
