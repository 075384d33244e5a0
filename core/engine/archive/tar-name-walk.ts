import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { entryName, describe } from './tar-entries.ts';
import { isExcluded } from './tar-walk.ts';

/**
 * The walk that feeds GNU tar its member list: the same tree, order, excludes and warnings as
 * tar-walk.ts, but it only names entries. Folders are read with their entry types
 * (`readdir(withFileTypes)`), so a file costs no `lstat` here; tar stats and reads it itself.
 */

export interface NameSink {
  /** Names one member (the absolute path without its leading `/`); resolves when the list can take more. */
  name(entry: string): Promise<void>;
  warn(message: string, path: string): void;
  /** A path left out by an exclude pattern or for being a special file (a differential tells tar; see gnu-tar-source.ts). */
  excluded?(path: string): void;
  checkAborted(): void;
}

function special(kind: {
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}): string {
  return kind.isFIFO()
    ? 'a FIFO'
    : kind.isSocket()
      ? 'a socket'
      : kind.isBlockDevice() || kind.isCharacterDevice()
        ? 'a device'
        : 'not a regular file';
}

/** Names one path (already `lstat`ed) and, for a folder, everything under it, in name order. */
export async function walkNames(sink: NameSink, abs: string, st: Stats, excludes: readonly string[]): Promise<void> {
  if (isExcluded(abs, excludes)) return sink.excluded?.(abs);
  if (st.isDirectory()) return walkFolder(sink, abs, excludes);
  if (st.isFile() || st.isSymbolicLink()) return sink.name(entryName(abs));
  sink.excluded?.(abs);
  sink.warn(`skipped ${abs}: ${special(st)}`, abs);
}

async function walkFolder(sink: NameSink, abs: string, excludes: readonly string[]): Promise<void> {
  sink.checkAborted();
  let children: Dirent[] = [];
  try {
    children = await readdir(abs, { withFileTypes: true });
  } catch (err) {
    sink.warn(`${abs}: cannot list its contents (${describe(err)}); archived as an empty folder`, abs);
  }
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const name = entryName(abs);
  if (name !== '') await sink.name(name);
  for (const child of children) {
    const path = join(abs, child.name);
    if (isExcluded(path, excludes)) {
      sink.excluded?.(path);
      continue;
    }
    if (child.isDirectory()) await walkFolder(sink, path, excludes);
    else if (child.isFile() || child.isSymbolicLink()) await sink.name(entryName(path));
    else if (child.isFIFO() || child.isSocket() || child.isBlockDevice() || child.isCharacterDevice()) {
      sink.excluded?.(path);
      sink.warn(`skipped ${path}: ${special(child)}`, path);
    } else {
      // The file system did not say what the entry is (DT_UNKNOWN): ask.
      let st: Stats;
      try {
        st = await lstat(path);
      } catch (err) {
        sink.warn(`skipped ${path}: ${describe(err)}`, path);
        continue;
      }
      await walkNames(sink, path, st, excludes);
    }
  }
}
