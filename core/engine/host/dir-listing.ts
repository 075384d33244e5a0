import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
/** One entry of a folder (the wire's `DirEntry`, core/agent-protocol/wire.ts, has this shape). */
export interface DirEntry {
  name: string;
  path: string;
  isDir: boolean;
  size: number;
  modifiedAt: string | null;
}

/** A folder's listing; `total` counts its entries before the cut at MAX_ENTRIES. */
export interface DirListing {
  path: string;
  entries: DirEntry[];
  total?: number;
  truncated?: boolean;
}

/** A folder with more entries is cut here: the listing is for a path picker, not an inventory. */
export const MAX_ENTRIES = 5000;

const STAT_BATCH = 64;

interface ListDirOptions {
  /** Whether a symbolic link may be shown (the master's confined listing drops links leading out of its roots). */
  admitLink?: (fullPath: string) => Promise<boolean>;
}

/**
 * Lists one folder, for the agent's `list_dir` and the master's own listing alike: folders
 * first, then by name. A link counts as a folder when it leads to one. `total` counts the
 * entries before the cut at MAX_ENTRIES.
 */
export async function listDir(rawPath: unknown, options: ListDirOptions = {}): Promise<DirListing> {
  const path = resolve('/', typeof rawPath === 'string' && rawPath.trim() !== '' ? rawPath : '/');
  let dirents = await readdir(path, { withFileTypes: true });
  const { admitLink } = options;
  if (admitLink) {
    const links = dirents.filter((d) => d.isSymbolicLink());
    const refused = new Set<Dirent>();
    for (const d of links) if (!(await admitLink(join(path, d.name)))) refused.add(d);
    dirents = dirents.filter((d) => !refused.has(d));
  }
  const describe = async (d: Dirent): Promise<DirEntry> => {
    const full = join(path, d.name);
    // stat follows links, so a link to a folder can be browsed into; a broken link keeps its own type.
    const info = await stat(full).catch(() => undefined);
    return {
      name: d.name,
      path: full,
      isDir: info ? info.isDirectory() : d.isDirectory(),
      size: info && info.isFile() ? info.size : 0,
      modifiedAt: info ? info.mtime.toISOString() : null,
    };
  };
  const entries: DirEntry[] = [];
  // In slices, so a folder of a million files does not queue a million stats at once.
  for (let i = 0; i < dirents.length; i += STAT_BATCH)
    entries.push(...(await Promise.all(dirents.slice(i, i + STAT_BATCH).map(describe))));
  entries.sort((a, b) => (a.isDir === b.isDir ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.isDir ? -1 : 1));
  const truncated = entries.length > MAX_ENTRIES;
  return { path, entries: entries.slice(0, MAX_ENTRIES), total: entries.length, ...(truncated ? { truncated } : {}) };
}
