import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tempDir, ADMIN } from '../helpers/build.ts';
import { api, startServerProcess } from '../helpers/server-process.ts';
import { waitFor } from '../helpers/agent-process.ts';

/**
 * The master SIGKILLed in the middle of an upload, then started again: the record fails and
 * nothing of the upload stays on any target, the temporary objects included.
 */

/** Every file below `dir`, as paths relative to it. */
async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

const isTemporary = (path: string): boolean => /(^|\/)\.[^/]*\.[0-9a-f]{16}\.partial$/.test(path);

/** Processes whose parent is `pid` (from /proc, Linux). */
async function childrenOf(pid: number): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[1]) === pid) out.push(Number(name));
  }
  return out;
}

const alive = async (pid: number): Promise<boolean> =>
  (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined)) !== undefined;

test('a master SIGKILLed mid-upload leaves no temporary object on local_disk or an rclone target after its restart', async (t) => {
  const dataDir = await tempDir(t);
  const diskDir = await tempDir(t);
  const rcloneDir = await tempDir(t);
  const src = await tempDir(t);
  // Incompressible and large, so the upload is still going when the kill lands (checked below: the record must not succeed).
  for (let i = 0; i < 8; i++) await writeFile(join(src, `part-${i}.bin`), randomBytes(16 * 1024 * 1024));
  // The sweep stays off: what is checked here is start-up recovery alone.
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
  assert.equal(disk.status, 200, JSON.stringify(disk.body));
  const remote = await api(`${first.url}/api/storage-targets`, 'POST', token, {
    name: 'remote',
    type: 'rclone',
    config: { backend: 'local', path: rcloneDir },
  });
  assert.equal(remote.status, 200, JSON.stringify(remote.body));
  const task = await api(`${first.url}/api/backup/tasks`, 'POST', token, {
    name: 'Killed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.body.data.id, remote.body.data.id],
    compression: 'none',
  });
  assert.equal(task.status, 200, JSON.stringify(task.body));
  const run = await api(`${first.url}/api/backup/tasks/${task.body.data.id}/run`, 'POST', token);
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const recordUrl = `/api/backup/records/${run.body.data.recordId}`;

  await waitFor(
    'both uploads to be under way',
    async () =>
      (await files(diskDir)).some(isTemporary) && (await files(rcloneDir)).some(isTemporary) ? true : undefined,
    60_000,
  );
  const pid = first.child.pid!;
  const orphans = await childrenOf(pid);
  first.child.kill('SIGKILL');
  await once(first.child, 'exit');
  // rclone outlives its killed parent (it even completes the temporary object when its stdin
  // closes); the restart is checked once it is gone, so nothing writes behind its back.
  await waitFor(
    'the orphaned rclone processes to exit',
    async () => ((await Promise.all(orphans.map(alive))).some(Boolean) ? undefined : true),
    60_000,
  );
  assert.ok((await files(diskDir)).some(isTemporary), 'the kill left a temporary file on local_disk');
  assert.ok((await files(rcloneDir)).some(isTemporary), 'the kill left a temporary object on the rclone target');

  const second = await startServerProcess(env);
  t.after(() => second.stop());
  const record = (await api(`${second.url}${recordUrl}`, 'GET', token)).body.data;
  assert.equal(record.status, 'failed', 'the kill landed while the run was going');
  assert.match(record.errorMessage, /master stopped while this backup was running/);
  assert.deepEqual(await files(diskDir), [], 'nothing of the upload stays on local_disk');
  assert.deepEqual(await files(rcloneDir), [], 'nothing of the upload stays on the rclone target');
  assert.equal(await second.stop(), 0);
});
