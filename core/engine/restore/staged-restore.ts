import type { Dirent } from 'node:fs';
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, realpath, rename, rm, rmdir, utimes } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { Compression } from '../stream/compression.ts';
import { gnuTarProgram } from '../archive/gnu-tar-source.ts';
import { ManifestCheck } from './artifact-check.ts';
import { gnuTarExtract } from './gnu-tar-extract.ts';
import { zstdProgram } from '../stream/compression.ts';
import { RootedFolders, clearPlace, missing } from './rooted-folders.ts';
import { archivePath, isSelected, safeExtract, type ExtractResult } from './safe-extract.ts';

/**
 * A file restore that reads the artifact once and overwrites nothing until it is proven whole:
 * the archive is extracted into a staging folder inside the restore root (same file system, so
 * the swap is a rename per entry) while every check runs on the same bytes — the stored
 * length and SHA-256 and age's authentication (the raw stream), decompression, and the archive
 * against its manifest. Only when the stream ended cleanly and everything matched are the
 * staged entries moved into place; on any failure the staging folder is removed and the root
 * is as it was. Reading twice (check first, then extract) cost twice the transfer and
 * decryption (docs/benchmarks.md).
 *
 * The move is link-safe like the extraction (rooted-folders.ts): nothing is placed through a
 * link on disk that leads outside the root. It is one rename per file, not one atomic step: a
 * failure in the middle of it (a full disk cannot happen, the bytes are on it already; a
 * permission change could) leaves the entries moved so far in place.
 */

export interface StagedRestoreOptions {
  root: string;
  selectedPaths?: string[];
  /** The manifest stored at backup time (archive path -> size or -1); absent = not compared. */
  manifest?: Map<string, number> | undefined;
  /** Every archive path seen, for a selection check. */
  onName?: (path: string) => void;
  /** Runs after the archive was read and checked, before anything moves: a throw keeps the root untouched. */
  beforeSwap?: () => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /**
   * A differential: the archives it builds on (its full), extracted first, each checked against
   * its own manifest. Then the differential is applied over them as GNU tar applies a chain
   * (`--listed-incremental`: what was deleted or renamed since goes), its members checked
   * against its manifest, which lists the whole tree. Needs GNU tar; a selection is applied
   * when the staged tree moves into place.
   */
  chain?: Array<{ source: RestoreSource; manifest?: Map<string, number> | undefined }>;
  /**
   * Writes the tree into the staging folder itself instead of an archive being extracted (a
   * restic snapshot: `restic restore --target <staging>`); `folders` are the folder entries it
   * wrote, whose modes and times the move keeps. The selection and the move are as for archives.
   */
  extract?: (staging: string) => Promise<ExtractResult & { folders: Set<string> }>;
}

export const STAGING_PREFIX = '.backplane-restore-';

/**
 * The archive to restore: a stream of the tar itself, or (for a zstd archive extracted by GNU
 * tar, decompressed by the zstd program beside it) of the tar still compressed with `compression`.
 */
export interface RestoreSource {
  compression: Compression;
  open(decompressed: boolean): Readable;
}

/** GNU tar extracts whole archives; selections and machines without GNU tar use safe-extract.ts. */
function extractor(source: RestoreSource, selected: string[]): string | undefined {
  if (selected.length > 0) return undefined;
  const program = gnuTarProgram();
  if (!program) return undefined;
  return source.compression !== 'zstd' || zstdProgram() ? program : undefined;
}

export async function stagedRestore(
  source: Readable | RestoreSource,
  options: StagedRestoreOptions,
): Promise<ExtractResult & { checked: { entries: number; bytes: number } }> {
  const input: RestoreSource = source instanceof Readable ? { compression: 'none', open: () => source } : source;
  const root = resolve(options.root);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const staging = await mkdtemp(join(realRoot, STAGING_PREFIX));
  try {
    if (options.extract) {
      const written = await options.extract(staging);
      options.beforeSwap?.();
      if (options.signal?.aborted) throw options.signal.reason;
      const selected = options.selectedPaths ?? [];
      await pruneToSelection(staging, selected);
      await moveIntoPlace(staging, root, realRoot, written.folders, selected);
      return {
        entries: written.entries,
        bytes: written.bytes,
        checked: { entries: written.entries, bytes: written.bytes },
      };
    }
    const chain = options.chain ?? [];
    const check = new ManifestCheck(options.manifest, options.onName, chain.length > 0);
    const folders = new Set<string>();
    const seenBy =
      (by: ManifestCheck) =>
      (rawName: string, type: string, size: number): void => {
        by.see(rawName, size);
        const name = archivePath(rawName);
        if (type === 'directory' && typeof name === 'string') folders.add(name);
      };
    const seen = seenBy(check);
    const selected = options.selectedPaths ?? [];
    if (chain.length > 0) {
      const program = gnuTarProgram();
      if (!program) throw new Error('restoring a differential backup needs GNU tar, which is not installed here');
      const earlier = { entries: 0, bytes: 0 };
      for (const link of [...chain, { source: input, manifest: undefined }]) {
        const own = link.source === input ? check : new ManifestCheck(link.manifest, options.onName);
        const zstd = link.source.compression === 'zstd' && zstdProgram() !== undefined;
        await gnuTarExtract(program, link.source.open(!zstd), {
          dir: staging,
          input: zstd ? 'zstd' : 'tar',
          incremental: true,
          onEntry: (e) => seenBy(own)(e.rawName, e.type, e.size),
          ...(options.onWarning ? { onWarning: options.onWarning } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        if (own !== check) {
          const done = own.finish();
          earlier.entries += done.entries;
          earlier.bytes += done.bytes;
        }
      }
      const checked = check.finish();
      options.beforeSwap?.();
      if (options.signal?.aborted) throw options.signal.reason;
      await pruneToSelection(staging, selected);
      await moveIntoPlace(staging, root, realRoot, folders, selected);
      const total = { entries: checked.entries + earlier.entries, bytes: checked.bytes + earlier.bytes };
      return { ...total, checked: total };
    }
    const program = extractor(input, selected);
    let result: ExtractResult;
    if (program) {
      // zstd runs as a program beside tar; a gzip archive is decompressed here (zlib)
      const zstd = input.compression === 'zstd';
      await gnuTarExtract(program, input.open(!zstd), {
        dir: staging,
        input: zstd ? 'zstd' : 'tar',
        onEntry: (e) => seen(e.rawName, e.type, e.size),
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      result = { entries: check.entries, bytes: check.bytes };
    } else {
      result = await safeExtract(input.open(true), {
        root: staging,
        selectedPaths: selected,
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
        onEntry: seen,
      });
    }
    const checked = check.finish();
    options.beforeSwap?.();
    if (options.signal?.aborted) throw options.signal.reason;
    await moveIntoPlace(staging, root, realRoot, folders, options.selectedPaths ?? []);
    return { ...result, checked };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * Removes from a staging folder what a selection does not ask for: a whole chain is extracted
 * (tar applies a differential to the whole tree), so the entries the selection leaves out go
 * before the move, which would otherwise move a folder that only leads to a selected path whole.
 */
async function pruneToSelection(staging: string, selected: string[]): Promise<void> {
  const wanted = selected.map((p) => archivePath(p)).filter((p): p is string => typeof p === 'string');
  if (wanted.length === 0) return;
  const walk = async (rel: string): Promise<void> => {
    for (const child of await readdir(rel === '' ? staging : join(staging, rel), { withFileTypes: true })) {
      const name = rel === '' ? child.name : `${rel}/${child.name}`;
      if (wanted.some((s) => name === s || name.startsWith(`${s}/`))) continue;
      if (child.isDirectory() && wanted.some((s) => s.startsWith(`${name}/`))) await walk(name);
      else await rm(join(staging, name), { recursive: true, force: true });
    }
  };
  await walk('');
}

/**
 * Moves the staged tree into the root, entries before their folder's times: a staged folder that
 * was an archive entry gives its mode and time to its place; one made only to hold a selected
 * path leaves an existing folder as it is.
 */
async function moveIntoPlace(
  staging: string,
  root: string,
  realRoot: string,
  archiveFolders: Set<string>,
  selected: string[],
): Promise<void> {
  const paths = new RootedFolders(root, realRoot);
  const selectedPaths = selected.map((p) => archivePath(p)).filter((p): p is string => typeof p === 'string');
  const times: Array<[string, Date, number]> = [];
  /**
   * A staged folder whose place does not exist yet (a restore into a new folder) moves in one
   * rename, with everything in it: its parent is proven to be a real folder inside the root, and
   * what is inside came from the staging folder, where nothing was written through a link.
   */
  const movedWhole = async (name: string, source: string): Promise<boolean> => {
    const dest = await paths.placeOf(name);
    if (await lstat(dest).catch(missing)) return false;
    await moveEntry(source, dest);
    return true;
  };
  const walk = async (rel: string): Promise<void> => {
    const from = rel === '' ? staging : join(staging, rel);
    const children: Dirent[] = await readdir(from, { withFileTypes: true });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const name = rel === '' ? child.name : `${rel}/${child.name}`;
      if (!isSelected(name, selectedPaths)) continue;
      const source = join(from, child.name);
      if (child.isDirectory() && (await movedWhole(name, source))) continue;
      if (child.isDirectory()) {
        if (archiveFolders.has(name)) {
          // A folder entry replaces whatever is not a folder at its place (a link included), as
          // the extraction does; a folder made only to hold entries goes through folder(), which
          // follows links inside the root and refuses the others.
          const dest = await paths.placeOf(name);
          const existing = await lstat(dest).catch(missing);
          if (existing && !existing.isDirectory()) {
            paths.forget();
            await rm(dest, { force: true });
          }
        }
        const real = await paths.folder(name);
        // The staged folder's mode and time (set by the extraction) before it is emptied and removed.
        const st = await lstat(source);
        await walk(name);
        if (archiveFolders.has(name)) times.push([real, st.mtime, st.mode & 0o7777]);
        continue;
      }
      const dest = await paths.placeOf(name);
      await clearPlace(dest, false);
      await moveEntry(source, dest);
      // A link can redirect later paths: every folder is proven again.
      if (child.isSymbolicLink()) paths.forget();
    }
    if (rel !== '') await rmdir(from).catch(() => undefined);
  };
  await walk('');
  for (const [dir, mtime, mode] of times) {
    if ((await realpath(dir).catch(() => undefined)) !== dir) continue;
    await chmod(dir, mode);
    await utimes(dir, mtime, mtime).catch(() => undefined);
  }
}

/**
 * A rename; across file systems (a restore to `/` reaching a separately mounted folder) a copy
 * with its mode and times kept, beside the destination, then renamed over it.
 */
async function moveEntry(source: string, dest: string): Promise<void> {
  try {
    await rename(source, dest);
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
  }
  const beside = join(dirname(dest), `${STAGING_PREFIX}${randomUUID()}`);
  try {
    await cp(source, beside, { preserveTimestamps: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    await rename(beside, dest);
  } finally {
    await rm(beside, { force: true });
  }
}
