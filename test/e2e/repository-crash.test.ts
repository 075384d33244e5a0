import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir, ADMIN } from '../helpers/build.ts';
import { api, startServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/agent-process.ts';
import { loadConfig } from '../../core/config/load-config.ts';
import { repositoryPassword } from '../../core/features/repositories/repository-password.ts';

const run = promisify(execFile);

/** The restic processes whose parent is `pid` (from /proc, Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid && command === 'restic') out.push(Number(name));
  }
  return out;
}

/** The master SIGKILLed in the middle of a repository backup, then started again. */
test('a master SIGKILLed mid-repository-backup with its restic: the record fails, the stale lock goes, restic check passes', async (t) => {
  const dataDir = await tempDir(t);
  const diskDir = await tempDir(t);
  const src = await tempDir(t);
  // Incompressible and large, so restic is still uploading when the kill lands.
  for (let i = 0; i < 6; i++) await writeFile(join(src, `part-${i}.bin`), randomBytes(16 * 1024 * 1024));
  const env = { BACKPLANE_DATA_DIR: dataDir, BACKPLANE_TEMP_SWEEP_INTERVAL: '0' };
  const first = await startServerProcess(env);
  t.after(async () => {
    if (first.child.exitCode === null && first.child.signalCode === null) await first.stop();
  });
  const token = (await api(`${first.url}/api/auth/setup`, 'POST', undefined, ADMIN)).body.data.token as string;
  const disk = await api(`${first.url}/api/storage-targets`, 'POST', token, {
    name: 'disk',
    type: 'local_disk',
    config: { basePath: diskDir },
  });
  const task = await api(`${first.url}/api/backup/tasks`, 'POST', token, {
    name: 'Killed repo',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.body.data.id],
    backupMode: 'repository',
  });
  assert.equal(task.status, 200, JSON.stringify(task.body));
  const started = await api(`${first.url}/api/backup/tasks/${task.body.data.id}/run`, 'POST', token);
  const recordUrl = `/api/backup/records/${started.body.data.recordId}`;
  const packs = join(diskDir, 'repositories', `task-${task.body.data.id}`, 'data');
  await waitFor(
    'restic to be uploading packs',
    async () => ((await readdir(packs, { recursive: true }).catch(() => [])).length > 0 ? true : undefined),
    60_000,
  );
  // The machine goes down with the master (a container stopped, a power cut): restic dies with
  // it and its lock stays in the repository, stale.
  const restics = await childrenOf(first.child.pid!);
  assert.ok(restics.length > 0, 'restic was running');
  first.child.kill('SIGKILL');
  for (const pid of restics) process.kill(pid, 'SIGKILL');
  await once(first.child, 'exit');

  const second = await startServerProcess(env);
  t.after(() => second.stop());
  const record = (await api(`${second.url}${recordUrl}`, 'GET', token)).body.data;
  assert.equal(record.status, 'failed', 'the kill landed while the run was going');
  assert.match(record.errorMessage, /master stopped while this backup was running/);

  // Start-up recovery cleared the stale lock: the stock restic checks the repository.
  const secret = await repositoryPassword(
    loadConfig({ env: { ...process.env, ...env } }),
    task.body.data.id,
    disk.body.data.id,
  );
  const dir = await mkdtemp(join(tmpdir(), 'bp-restic-pw-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'pw'), secret.password, { mode: 0o600 });
  const repo = join(diskDir, secret.prefix);
  const check = await run('restic', ['--no-cache', '-r', repo, '--password-file', join(dir, 'pw'), 'check']);
  assert.match(check.stdout, /no errors were found/);
  // The next run works on the same repository.
  const again = await api(`${second.url}/api/backup/tasks/${task.body.data.id}/run`, 'POST', token);
  const done = await waitFor(
    'the next run to end',
    async () => {
      const r = (await api(`${second.url}/api/backup/records/${again.body.data.recordId}`, 'GET', token)).body.data;
      return ['success', 'partial', 'failed'].includes(r.status) ? r : undefined;
    },
    120_000,
  );
  assert.equal(done.status, 'success', done.errorMessage);
});
