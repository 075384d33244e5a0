import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isMissing, toProviderError } from './local-errors.ts';

export interface Folder {
  dir: string;
  /** The key prefix of the folder's entries: '' at the base, `a/b/` below it. */
  key: string;
  entries: Dirent[];
}

/**
 * Every folder from `start` down, each with its entries. `descend(name, folderKey)` decides which
 * subfolders are walked. A folder deleted while the walk runs is skipped, not an error. Dirent
 * types come from lstat, so a symlinked folder is never followed out of the base.
 */
export async function* walkFolders(
  start: string,
  startKey: string,
  descend: (name: string, folderKey: string) => boolean,
): AsyncGenerator<Folder> {
  const stack = [{ dir: start, key: startKey }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(next.dir, { withFileTypes: true });
    } catch (err) {
      if (isMissing(err)) continue;
      throw toProviderError(err, `listing ${next.dir}`);
    }
    for (const entry of entries) {
      const folderKey = `${next.key}${entry.name}/`;
      if (entry.isDirectory() && descend(entry.name, folderKey))
        stack.push({ dir: join(next.dir, entry.name), key: folderKey });
    }
    yield { ...next, entries };
  }
}
