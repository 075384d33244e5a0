import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The master's scratch folder (`<data dir>/tmp`): providers' temp files, the dumps of a
 * several-database backup on their way into the archive, deep-verification sandboxes. At start
 * nothing of this process uses it yet, so whatever is there was left by a process that stopped
 * mid-run (a crash, a kill) and is removed: a dump of a large database must not outlive its run.
 * A data dir belongs to one master process (its SQLite database, its keys), so no other
 * process's work is in it.
 */
export async function resetScratchDir(dataDir: string): Promise<{ path: string; removed: string[] }> {
  const path = join(dataDir, 'tmp');
  await mkdir(path, { recursive: true });
  const removed = await readdir(path);
  await Promise.all(removed.map((name) => rm(join(path, name), { recursive: true, force: true })));
  return { path, removed };
}
