import type { Stats } from 'node:fs';
import { lstat, readdir, readlink } from 'node:fs/promises';
import { basename, join, matchesGlob } from 'node:path';
import { describe, entryName, readSmall, type TarEntries } from './tar-entries.ts';

/** Files up to this size are read whole, ahead of their turn. */
const SMALL_FILE = 256 * 1024;
/** Children looked at (and small files read) concurrently. */
const PREFETCH_BATCH = 32;

export function isExcluded(absPath: string, excludes: readonly string[]): boolean {
  const name = basename(absPath);
  for (const pattern of excludes) {
    if (pattern.includes('/')) {
      if (matchesGlob(absPath, pattern)) return true;
    } else if (matchesGlob(name, pattern)) {
      return true;
    }
  }
  return false;
}

/**
 * Archives one path and, for a folder, everything under it, in name order. Links are stored as
 * links (never followed); sockets, FIFOs and devices are skipped with a warning.
 */
export async function walk(
  entries: TarEntries,
  abs: string,
  excludes: readonly string[],
  warn: (message: string, path: string) => void,
  known?: Stats,
): Promise<void> {
  entries.checkAborted();
  if (isExcluded(abs, excludes)) return;
  let st: Stats;
  if (known) st = known;
  else {
    try {
      st = await lstat(abs);
    } catch (err) {
      warn(`skipped ${abs}: ${describe(err)}`, abs);
      return;
    }
  }
  if (st.isFile()) {
    await entries.file(abs, st);
  } else if (st.isSymbolicLink()) {
    let linkname: string;
    try {
      linkname = await readlink(abs);
    } catch (err) {
      warn(`skipped ${abs}: ${describe(err)}`, abs);
      return;
    }
    await entries.symlink(abs, st, linkname);
  } else if (st.isDirectory()) {
    let children: string[] = [];
    try {
      children = (await readdir(abs)).sort();
    } catch (err) {
      warn(`${abs}: cannot list its contents (${describe(err)}); archived as an empty folder`, abs);
    }
    if (entryName(abs) !== '') await entries.directory(abs, st);
    await walkChildren(entries, abs, children, excludes, warn);
  } else {
    const kind = st.isFIFO()
      ? 'a FIFO'
      : st.isSocket()
        ? 'a socket'
        : st.isBlockDevice() || st.isCharacterDevice()
          ? 'a device'
          : 'not a regular file';
    warn(`skipped ${abs}: ${kind}`, abs);
  }
}

/**
 * Children in batches: their lstat calls, and the contents of the small files among them, run
 * concurrently; entries are still written one by one, in name order.
 */
async function walkChildren(
  entries: TarEntries,
  abs: string,
  children: string[],
  excludes: readonly string[],
  warn: (message: string, path: string) => void,
): Promise<void> {
  for (let i = 0; i < children.length; i += PREFETCH_BATCH) {
    entries.checkAborted();
    const batch = children
      .slice(i, i + PREFETCH_BATCH)
      .map((c) => join(abs, c))
      .filter((p) => !isExcluded(p, excludes));
    const stats = await Promise.all(batch.map((p) => lstat(p).catch((err: unknown) => err as Error)));
    const small = batch.map((p, j) => {
      const cst = stats[j]!;
      return cst instanceof Error || !cst.isFile() || cst.size > SMALL_FILE ? undefined : readSmall(p);
    });
    for (const [j, p] of batch.entries()) {
      const cst = stats[j]!;
      if (cst instanceof Error) {
        warn(`skipped ${p}: ${describe(cst)}`, p);
        continue;
      }
      const pre = small[j];
      if (pre) await entries.prefetched(p, await pre);
      else await walk(entries, p, excludes, warn, cst);
    }
  }
}
