import { createInterface } from 'node:readline';
import type { ObjectInfo } from '@backplane/plugin-api';
import type { Profile } from './invocation.ts';
import { isNotFound, redact, trimReason } from './errors.ts';
import { objectInfo, type LsjsonEntry } from './lsjson.ts';
import { COMMAND_DEADLINE_MS, STANDARD, type Call, type RcloneRunner, type Ready } from './rclone-runner.ts';

/**
 * The file operations the others build on: stat, list one folder's files, delete one file.
 * Keys are checked by the callers (these also reach internal names: temporaries, probes).
 */

/** Clean-up of a temporary object after a failed upload. */
const CLEANUP_DEADLINE_MS = 30_000;

export async function statFile(
  r: RcloneRunner,
  ready: Ready,
  key: string,
  call: Call,
): Promise<ObjectInfo | undefined> {
  const result = await r.run(ready, { op: 'stat', path: key }, call, { deadlineMs: COMMAND_DEADLINE_MS });
  if (result.code !== 0 && !result.spawnError && !result.killedBy && isNotFound(result)) return undefined;
  const failure = r.failure('lsjson', result, ready, call, COMMAND_DEADLINE_MS);
  if (failure) throw failure;
  const text = result.stdout.toString('utf8').trim();
  if (text === '') return undefined;
  const entry = JSON.parse(text) as LsjsonEntry;
  if (entry.IsDir) return undefined;
  return objectInfo(key, entry);
}

/**
 * Every file below `folder` (or directly in it), internal names included, as `lsjson` reports
 * them: `name` is the path relative to `folder`. A folder that does not exist holds nothing.
 */
export async function* filesIn(
  r: RcloneRunner,
  ready: Ready,
  folder: string,
  recursive: boolean,
): AsyncGenerator<ObjectInfo & { name: string }> {
  const child = r.spawn(ready, { op: 'list', path: folder, recursive }, STANDARD, { stdout: 'pipe' });
  try {
    if (child.pid !== undefined) {
      const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
      for await (const line of lines) {
        const text = line.trim().replace(/,$/, '');
        if (!text.startsWith('{')) continue;
        const entry = JSON.parse(text) as LsjsonEntry;
        if (entry.IsDir || typeof entry.Path !== 'string') continue;
        yield { name: entry.Path, ...objectInfo(`${folder}${entry.Path}`, entry) };
      }
    }
    const exit = await child.exited;
    if (exit.code !== 0 && !exit.spawnError && !exit.killedBy && isNotFound(exit)) return;
    const failure = r.failure('lsjson', exit, ready, STANDARD);
    if (failure) throw failure;
  } finally {
    if (!child.exit) await child.terminate();
  }
}

/** Deletes one file of the remote. */
export async function deleteFile(r: RcloneRunner, ready: Ready, key: string, call: Call): Promise<void> {
  const result = await r.run(ready, { op: 'deletefile', path: key }, call, { deadlineMs: COMMAND_DEADLINE_MS });
  // Idempotent: a missing object (or a missing folder on the way to it) is already deleted.
  if (result.code !== 0 && !result.spawnError && !result.killedBy && isNotFound(result)) return;
  const failure = r.failure('deletefile', result, ready, call, COMMAND_DEADLINE_MS);
  if (failure) throw failure;
}

/** Removes a temporary object after a failure; a failure to do so is only logged (the sweep gets it later). */
export async function deleteQuietly(r: RcloneRunner, ready: Ready, key: string, profile: Profile): Promise<void> {
  const result = await r.run(ready, { op: 'deletefile', path: key }, { profile }, { deadlineMs: CLEANUP_DEADLINE_MS });
  if (result.code !== 0 && !isNotFound(result)) {
    r.log?.warn(
      `rclone ${r.def.backend}: could not remove temporary object ${key}: ${trimReason(redact(result.stderr, ready.secrets), 300)}`,
    );
  }
}
