import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import type { ManifestEntry } from '../archive/manifest-entry.ts';
import { walkNames } from '../archive/tar-name-walk.ts';
import { sourcesKept } from './restic-excludes.ts';

/**
 * A repository run's file list, walked beside `restic backup` instead of read back with
 * `restic ls` afterwards. Every restic process opens the repository with a deliberately slow key
 * derivation (scrypt calibrated to about 0.5 s), so a second process per run cost as much as the
 * whole backup of a tree where little changed (docs/benchmarks.md). The walk is the tar walk's
 * (same excludes, same order); the caller compares what it saw with restic's summary and reads
 * the snapshot instead when they differ (a file changed, appeared or vanished during the run, or
 * restic could not read one).
 */

export interface SourceListing {
  /** Regular files seen, and their bytes: what restic's summary counts as files and bytes processed. */
  files: number;
  bytes: number;
}

/** lstat calls in flight: one at a time costs a thread-pool round trip per file (about 0.25 ms, measured). */
const STATS_IN_FLIGHT = 64;

export async function listSources(
  sources: readonly string[],
  excludes: readonly string[],
  add: (entry: ManifestEntry) => void,
  signal?: AbortSignal,
): Promise<SourceListing> {
  const seen: SourceListing = { files: 0, bytes: 0 };
  const statOne = async (entry: string): Promise<void> => {
    let st: Stats;
    try {
      st = await lstat(`/${entry}`);
    } catch {
      return; // gone since its folder was read: restic will not have it either, the counts tell
    }
    const type = st.isFile() ? 'file' : st.isDirectory() ? 'directory' : st.isSymbolicLink() ? 'symlink' : undefined;
    if (!type) return;
    if (type === 'file') {
      seen.files++;
      seen.bytes += st.size;
    }
    // restic's nodes give links and folders no size and no link target; the fallback lists the same.
    add({ path: entry, size: type === 'file' ? st.size : 0, mtime: st.mtime, mode: st.mode & 0o7777, type });
  };
  // oldest first: waiting for the oldest keeps the window full at a constant cost per file
  const inFlight: Promise<void>[] = [];
  const sink = {
    async name(entry: string): Promise<void> {
      inFlight.push(statOne(entry));
      if (inFlight.length >= STATS_IN_FLIGHT) await inFlight.shift();
    },
    warn(): void {
      // restic reports what it could not read; a difference shows in the counts
    },
    checkAborted(): void {
      signal?.throwIfAborted();
    },
  };
  try {
    for (const kept of sourcesKept(sources, excludes)) {
      const source = kept.length > 1 ? kept.replace(/\/+$/, '') : kept;
      let st: Stats;
      try {
        st = await lstat(source);
      } catch {
        continue; // restic fails or warns on a missing source
      }
      await walkNames(sink, source, st, excludes);
    }
  } finally {
    await Promise.all(inFlight);
  }
  return seen;
}
