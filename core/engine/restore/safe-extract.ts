import { constants, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, open, realpath, rm, symlink, utimes, lutimes } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';
import { RootedFolders, clearPlace, missing } from './rooted-folders.ts';

/** Files up to this size are buffered and written in the background. */
const SMALL_FILE = 1024 * 1024;
const WRITE_AHEAD = 16;

export interface ExtractOptions {
  /** Absolute directory every entry must land in (`/` for the original locations). */
  root: string;
  /** Archive paths to restore (with everything below them); empty = all. */
  selectedPaths?: string[];
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
  /**
   * Every archive entry, selected or not, before it is written: its raw name, type and content
   * length (0 for folders and links). A throw fails the extraction.
   */
  onEntry?: (rawName: string, type: string, size: number) => void;
}

export interface ExtractResult {
  entries: number;
  bytes: number;
}

/** An archive path as a clean relative path, or an explanation of why it is refused. */
export function archivePath(name: string): string | { refused: string } {
  if (name.includes('\0')) return { refused: 'contains NUL' };
  const trimmed = name.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return { refused: 'empty name' };
  const parts = trimmed.split('/');
  if (parts.some((p) => p === '..')) return { refused: 'contains ".."' };
  return parts.filter((p) => p !== '' && p !== '.').join('/');
}

export function isSelected(path: string, selected: readonly string[]): boolean {
  if (selected.length === 0) return true;
  return selected.some((s) => path === s || path.startsWith(`${s}/`) || s.startsWith(`${path}/`));
}

/**
 * Extracts a tar stream under `root` and touches nothing outside it: no `..`, absolute names
 * land under the root, and no folder or file is ever created or written through a symbolic link
 * that leads outside the root (a link restored earlier in the same archive, or one already on
 * disk). Folders are made one level at a time, each path component checked with `lstat` first,
 * so a refusal leaves not even an empty folder elsewhere. Links that stay inside the root are
 * followed (a restore to `/` goes through `/lib -> usr/lib`); a link entry itself may point
 * anywhere, it is only never written through. Existing files are replaced, not overwritten in
 * place (as GNU tar does), so a hard link to a file outside the root is never written into.
 * Folders that only lead to selected paths are created, other entries are skipped.
 *
 * Hand-written on tar-stream rather than node-tar: node-tar (7.5, measured) refuses every
 * symbolic-link component, also one that stays inside the root, so a restore to the original
 * locations fails on merged-/usr systems; and it skips such entries with a warning instead of
 * failing the restore. What this does not guard against is another process swapping folders
 * for links under the root while the extraction runs (Node has no `openat`).
 */
export async function safeExtract(stream: Readable, options: ExtractOptions): Promise<ExtractResult> {
  const root = resolve(options.root);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const selected = (options.selectedPaths ?? [])
    .map((p) => archivePath(p))
    .filter((p): p is string => typeof p === 'string');
  const result: ExtractResult = { entries: 0, bytes: 0 };
  const dirTimes: Array<[string, Date]> = [];
  const extract = tar.extract();

  const paths = new RootedFolders(root, realRoot);
  const forget = (): void => paths.forget();
  const placeOf = (name: string): Promise<string> => paths.placeOf(name);
  const clear = clearPlace;
  const createFile = (dest: string, mode: number) =>
    open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);

  // Small files are written in the background (up to WRITE_AHEAD at once) while the archive is
  // read on: their contents are in memory already, and each write is several file-system calls.
  const writing = new Map<string, Promise<void>>();
  let writeError: unknown;
  const writeFileAt = async (dest: string, data: Buffer, mode: number, mtime: Date): Promise<void> => {
    await clear(dest, false);
    const handle = await createFile(dest, mode);
    try {
      if (data.length > 0) await handle.write(data, 0, data.length, 0);
      await handle.chmod(mode);
      await handle.utimes(mtime, mtime);
    } finally {
      await handle.close();
    }
  };
  const settleWrites = async (): Promise<void> => {
    await Promise.all(writing.values());
    if (writeError !== undefined) throw writeError;
  };

  extract.on('entry', (header, body, next) => {
    body.on('error', () => undefined); // the extract reports it
    const done = (err?: unknown): void => {
      body.resume();
      if (err) extract.destroy(err instanceof Error ? err : new Error(String(err)));
      else next();
    };
    void (async () => {
      if (options.signal?.aborted) throw options.signal.reason;
      const type = header.type ?? 'file';
      options.onEntry?.(header.name, type, type === 'file' || type === 'contiguous-file' ? (header.size ?? 0) : 0);
      const name = archivePath(header.name);
      if (typeof name !== 'string') {
        options.onWarning?.(`skipped archive entry ${JSON.stringify(header.name)}: ${name.refused}`);
        return;
      }
      if (name === '') {
        // The root itself: it exists already, and an archive does not get to replace it or set its mode.
        if (header.type !== 'directory')
          options.onWarning?.(`skipped archive entry ${JSON.stringify(header.name)}: it names the root itself`);
        return;
      }
      if (!isSelected(name, selected)) return;
      const mode = (header.mode ?? 0o644) & 0o7777;
      const mtime = header.mtime ?? new Date();
      switch (header.type) {
        case 'directory': {
          const dest = await placeOf(name);
          const existing = await lstat(dest).catch(missing);
          if (!existing?.isDirectory()) {
            if (existing) {
              // Replacing a path changes what later paths resolve to: let pending writes land first.
              await settleWrites();
              forget();
              await rm(dest, { force: true });
            }
            await mkdir(dest);
          }
          await chmod(dest, mode);
          paths.know(name, dest);
          dirTimes.push([dest, mtime]);
          break;
        }
        case 'file':
        case 'contiguous-file': {
          const dest = await placeOf(name);
          await writing.get(dest);
          if (writeError !== undefined) throw writeError;
          if ((header.size ?? 0) <= SMALL_FILE) {
            const chunks: Buffer[] = [];
            for await (const c of body) chunks.push(c as Buffer);
            const data = Buffer.concat(chunks);
            result.bytes += data.length;
            while (writing.size >= WRITE_AHEAD) await Promise.race(writing.values());
            const job = writeFileAt(dest, data, mode, mtime)
              .catch((err: unknown) => {
                writeError ??= err;
              })
              .finally(() => writing.delete(dest));
            writing.set(dest, job);
            break;
          }
          await clear(dest, false);
          const handle = await createFile(dest, mode);
          let written = 0;
          try {
            body.on('data', (c: unknown) => {
              written += (c as Buffer).length;
            });
            await pipeline(body, createWriteStream('', { fd: handle.fd, autoClose: false }));
            await handle.chmod(mode);
            await handle.utimes(mtime, mtime);
          } finally {
            await handle.close();
          }
          result.bytes += written;
          break;
        }
        case 'symlink': {
          const dest = await placeOf(name);
          // A link can redirect later paths: no write may still be pending below it, and every
          // folder is proven again afterwards.
          await settleWrites();
          forget();
          await clear(dest, false);
          await symlink(header.linkname ?? '', dest);
          await lutimes(dest, mtime, mtime).catch(() => undefined);
          break;
        }
        default:
          options.onWarning?.(`skipped ${name}: unsupported entry type ${header.type}`);
          return;
      }
      result.entries++;
    })().then(() => done(), done);
  });

  try {
    await pipeline(stream, extract);
  } finally {
    await Promise.allSettled(writing.values());
  }
  await settleWrites();
  // Folder times last: writing their contents changed them. A folder a later entry replaced by a
  // link (its real path no longer resolves to itself) is left alone: the time would land outside.
  for (const [dir, time] of dirTimes.reverse()) {
    if ((await realpath(dir).catch(() => undefined)) === dir) await utimes(dir, time, time).catch(() => undefined);
  }
  return result;
}
