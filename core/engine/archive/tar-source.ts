import { lstat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { describe, TarEntries } from './tar-entries.ts';
import { walk } from './tar-walk.ts';

export { isExcluded } from './tar-walk.ts';

/**
 * A tar (POSIX ustar/pax, as tar-stream writes it) of a file task's paths.
 *
 * Entry names: the absolute path without its leading `/`, like GNU tar does, so
 * `tar -x -C /restore` puts `/etc/hosts` at `/restore/etc/hosts` and the paths of several
 * sources never collide. Regular files, directories and symbolic links (stored as links, never
 * followed) are archived; sockets, FIFOs and devices are skipped with a warning. Hard links are
 * stored as independent copies.
 *
 * Files: tar-walk.ts walks the tree (in name order, small files prefetched), tar-entries.ts
 * writes each entry; this module drives them and ends or fails the archive.
 */

import type { ManifestEntry, ManifestEntryType } from './manifest-entry.ts';

export type { ManifestEntry, ManifestEntryType };

export interface TarSourceOptions {
  /** Absolute paths (files or folders). Relative paths are resolved against the working directory. */
  paths: string[];
  /**
   * Globs (`path.matchesGlob`). A pattern containing `/` is matched against the absolute path;
   * one without (`*.log`, `node_modules`) is matched against the base name, at any depth. An
   * excluded folder is not descended into.
   */
  excludes?: string[];
  /**
   * Something could not be archived (missing, unreadable, vanished, special file); it was
   * skipped. When no source path at all can be read, the archive fails instead.
   */
  onWarning?: (message: string, path: string) => void;
  signal?: AbortSignal;
  /**
   * Receives each entry once it is written. When given, entries are not collected in
   * `manifest` (which then stays empty), so a huge tree costs no memory for its list.
   */
  onEntry?: (entry: ManifestEntry) => void;
}

export interface TarSource {
  /** The tar bytes; paced by its consumer. */
  stream: Readable;
  /** Filled as entries are written; complete once `done` resolves. */
  manifest: ManifestEntry[];
  /** Resolves once the last entry is written (before the consumer reads it all); rejects on a fatal error. */
  done: Promise<ManifestEntry[]>;
}

export function createTarSource(options: TarSourceOptions): TarSource {
  const pack = tar.pack();
  const manifest: ManifestEntry[] = [];
  const record = options.onEntry ?? ((entry: ManifestEntry): void => void manifest.push(entry));
  const excludes = options.excludes ?? [];
  const warn = (message: string, path: string): void => options.onWarning?.(message, path);
  const entries = new TarEntries(pack, record, warn, options.signal);

  const done = (async () => {
    try {
      const unreadable: string[] = [];
      for (const p of options.paths) {
        const abs = resolve(p);
        const st = await lstat(abs).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
        if (st instanceof Error) {
          unreadable.push(`${abs} (${describe(st)})`);
          warn(`skipped ${abs}: ${describe(st)}`, abs);
          continue;
        }
        await walk(entries, abs, excludes, warn, st);
      }
      // An empty archive of a task whose every path is gone is no backup: fail before the tar
      // ends, so no target commits an object.
      if (options.paths.length > 0 && unreadable.length === options.paths.length) {
        throw new Error(`nothing to back up: no source path could be read: ${unreadable.join(', ')}`.slice(0, 1500));
      }
      pack.finalize();
      return manifest;
    } catch (err) {
      pack.destroy(err as Error);
      throw err;
    }
  })();
  done.catch(() => undefined);
  // tar-stream is streamx; wrap it so Node's pipeline and destroy() behave as for any Node stream.
  return { stream: Readable.from(pack, { objectMode: false }), manifest, done };
}
