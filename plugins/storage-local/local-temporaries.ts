import { lstat, readdir, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isTemporaryUploadOf } from '@backplane/plugin-api';
import { isMissing, toProviderError } from './local-errors.ts';
import { TEMP_NAME } from './local-keys.ts';
import { walkFolders } from './folder-walk.ts';

/**
 * The temp files of atomic-write.ts that a killed process left behind: it cannot remove them
 * itself, so the storage removes them on core's request (one key after a crash, or every stale
 * one in a periodic sweep).
 */

async function removeFile(path: string): Promise<boolean> {
  try {
    // A symlink or folder with a temp-like name is not ours: only regular files go.
    if (!(await lstat(path)).isFile()) return false;
    await unlink(path);
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw toProviderError(err, `removing temporary file ${path}`);
  }
}

/** Removes the temp files beside `target` that belong to it; returns how many. */
export async function removeTemporariesOf(target: string): Promise<number> {
  const dir = dirname(target);
  const name = basename(target);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (err) {
    if (isMissing(err)) return 0;
    throw toProviderError(err, `listing ${dir}`);
  }
  let removed = 0;
  for (const entry of entries) {
    if (isTemporaryUploadOf(entry, name) && (await removeFile(join(dir, entry)))) removed++;
  }
  return removed;
}

/**
 * Removes temp files below `base` last modified before `olderThan`, except those of the keys in
 * `keep`; `prune` is called with each folder something was removed from. Returns how many.
 */
export async function removeStaleTemporaries(
  base: string,
  olderThan: Date,
  keep: Iterable<string>,
  prune: (dir: string) => Promise<void>,
): Promise<number> {
  const kept = new Map<string, string[]>();
  for (const key of keep) {
    const slash = key.lastIndexOf('/');
    const folder = key.slice(0, slash + 1);
    kept.set(folder, [...(kept.get(folder) ?? []), key.slice(slash + 1)]);
  }
  let removed = 0;
  for await (const folder of walkFolders(base, '', () => true)) {
    let removedHere = false;
    for (const entry of folder.entries) {
      if (!entry.isFile() || !TEMP_NAME.test(entry.name)) continue;
      if ((kept.get(folder.key) ?? []).some((name) => isTemporaryUploadOf(entry.name, name))) continue;
      const path = join(folder.dir, entry.name);
      let modified: Date;
      try {
        modified = (await lstat(path)).mtime;
      } catch (err) {
        if (isMissing(err)) continue;
        throw toProviderError(err, `reading ${path}`);
      }
      if (modified >= olderThan) continue;
      if (await removeFile(path)) {
        removed++;
        removedHere = true;
      }
    }
    if (removedHere && folder.dir !== base) await prune(folder.dir);
  }
  return removed;
}
