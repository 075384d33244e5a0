import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask, runAndWait, stockRestic } from './helpers.ts';
import { repositoryPassword } from '../../core/features/repositories/repository-password.ts';
import { RepositoryEntity } from '../../core/db/entities/repository.ts';
import { startLoopbackBridge } from '../../core/engine/index.ts';
import { localDisk } from '../engine/helpers.ts';
import { wrapStorage } from '../engine/bridge-storages.ts';
import { repositoryPasswordAad } from '../../core/backup/repositories.ts';

// A repository run that cannot use its repository fails with a stable code in the record and
// says why; a repository another restic holds locked is waited for, up to the configured wait.

const run = promisify(execFile);

async function passwordFile(t: TestContext, password: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-restic-pw-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, 'password');
  await writeFile(file, password, { mode: 0o600 });
  return file;
}

/** The repository's lock files (a storage holds no empty folder: none, no `locks/`). */
async function locks(repo: string): Promise<string[]> {
  return readdir(join(repo, 'locks')).catch(() => []);
}

/**
 * The stock restic's `check` holds the repository's exclusive lock: it reaches the repository
 * through a bridge whose listing of the index waits for `release`, so it stops right after
 * taking its lock and goes on (and removes the lock) when released.
 */
async function holdExclusiveLock(t: TestContext, dir: string, prefix: string, password: string) {
  const file = await passwordFile(t, password);
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const inner = await localDisk(dir);
  const storage = wrapStorage(inner, {
    list: (p) =>
      (async function* () {
        if (p.endsWith('/index/')) await gate;
        yield* inner.list(p);
      })(),
  });
  const bridge = await startLoopbackBridge({ storage, prefix, appendOnly: false });
  t.after(() => bridge.close());
  const child = spawn('restic', ['--no-cache', '-r', bridge.url, '--password-file', file, 'check'], {
    stdio: 'ignore',
  });
  const exited = once(child, 'exit');
  t.after(() => child.kill('SIGKILL'));
  const repo = join(dir, prefix);
  for (let i = 0; i < 400 && (await locks(repo)).length === 0; i++) await sleep(25);
  assert.equal((await locks(repo)).length, 1, 'restic check holds its lock');
  return async () => {
    open();
    const [code] = await exited;
    assert.equal(code, 0, 'the stock restic check passed');
  };
}

async function snapshotCount(repo: string, password: string): Promise<number> {
  return (JSON.parse(await stockRestic(password, repo, ['snapshots', '--json'])) as unknown[]).length;
}

async function repositoryTask(t: TestContext, app: FastifyInstance, admin: string) {
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'alpha');
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'repo',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
    backupMode: 'repository',
  });
  const first = await runAndWait(app, admin, task.id);
  assert.equal(first.status, 'success', first.errorMessage);
  assert.equal(first.errorCode, null);
  const secret = await repositoryPassword(app.diContainer.cradle.config, task.id, disk.id);
  return { src, task, disk, prefix: secret.prefix, repo: join(disk.dir, secret.prefix), password: secret.password };
}

async function recordOf(app: FastifyInstance, admin: string, id: number): Promise<any> {
  return (await call(app, 'GET', `/api/backup/records/${id}`, { token: admin })).json.data;
}

test('repository mode: a run waits for a lock another restic holds, and goes on when it is released', async (t) => {
  const { app } = await build(t, { config: { repositoryLockWaitSeconds: 120 } });
  const admin = await setupAdmin(app);
  const { task, disk, prefix, repo, password } = await repositoryTask(t, app, admin);
  const release = await holdExclusiveLock(t, disk.dir, prefix, password);
  const started = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(started.status, 200, started.body);
  const id = started.json.data.recordId as number;
  let record = await recordOf(app, admin, id);
  for (let i = 0; i < 400 && !String(record.logContent).includes('the repository is locked'); i++) {
    await sleep(50);
    record = await recordOf(app, admin, id);
  }
  assert.match(record.logContent, /the repository is locked \(held exclusively by PID \d+ on /);
  assert.equal(record.status, 'running', 'still waiting');
  await release();
  for (let i = 0; i < 600 && record.status === 'running'; i++) {
    await sleep(50);
    record = await recordOf(app, admin, id);
  }
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(await snapshotCount(repo, password), 2);
});

test('repository mode: a lock held past the wait, a wrong password and a damaged index fail the run with a code', async (t) => {
  const { app, dataDir } = await build(t, { config: { repositoryLockWaitSeconds: 0 } });
  const admin = await setupAdmin(app);
  const { task, disk, prefix, repo, password } = await repositoryTask(t, app, admin);

  const release = await holdExclusiveLock(t, disk.dir, prefix, password);
  const locked = await runAndWait(app, admin, task.id);
  await release();
  assert.equal(locked.status, 'failed');
  assert.equal(locked.errorCode, 'REPOSITORY_LOCKED');
  assert.equal(locked.storageUploadResults[0].errorCode, 'REPOSITORY_LOCKED');
  assert.match(locked.errorMessage, /already locked exclusively/);
  assert.equal(await snapshotCount(repo, password), 1, 'no snapshot from the refused run');

  // An index file of the repository damaged on the storage, with no cached copy to hide it.
  await rm(join(dataDir, 'restic-cache'), { recursive: true, force: true });
  const [index] = await readdir(join(repo, 'index'));
  const path = join(repo, 'index', index!);
  const original = await readFile(path);
  const damaged = Buffer.from(original);
  damaged[damaged.length >> 1]! ^= 0xff;
  await writeFile(path, damaged);
  const broken = await runAndWait(app, admin, task.id);
  assert.equal(broken.status, 'failed');
  assert.equal(broken.errorCode, 'REPOSITORY_DAMAGED');
  assert.match(broken.errorMessage, /invalid data returned/);
  await writeFile(path, original);

  // The sealed password no longer opens the repository (another repository took its folder, say).
  const em = app.diContainer.cradle.orm.em.fork();
  const row = await em.findOneOrFail(RepositoryEntity, { taskId: task.id }, { populate: ['sealedPassword'] });
  row.sealedPassword = app.diContainer.cradle.secretBox.seal('not-the-password', repositoryPasswordAad(row.id));
  await em.flush();
  const wrong = await runAndWait(app, admin, task.id);
  assert.equal(wrong.status, 'failed');
  assert.equal(wrong.errorCode, 'REPOSITORY_WRONG_PASSWORD');
  assert.match(wrong.errorMessage, /wrong password/);
  assert.equal(await snapshotCount(repo, password), 1);
});
