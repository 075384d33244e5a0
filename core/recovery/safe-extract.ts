import { constants, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, open, realpath, rm, symlink, utimes, lutimes } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import tar from 'tar-stream';

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

function within(root: string, path: string): boolean {
  return root === sep ? path.startsWith(sep) : path === root || path.startsWith(root + sep);
}

/**
 * Extracts a tar stream under `root`. Every entry's path is checked: no `..`, no escape by
 * absolute names, and no writing through a symbolic link that leads outside the root (a link
 * restored earlier in the same archive, or one already on disk). Files are written without
 * following a link at their own name. Folders that only lead to selected paths are created,
 * other entries are skipped.
 */
export async function safeExtract(stream: Readable, options: ExtractOptions): Promise<ExtractResult> {
  const root = resolve(options.root);
  await mkdir(root, { recursive: true });
  const realRoot = await realpath(root);
  const selected = (options.selectedPaths ?? []).map((p) => archivePath(p)).filter((p): p is string => typeof p === 'string');
  const result: ExtractResult = { entries: 0, bytes: 0 };
  const dirTimes: Array<[string, Date]> = [];
  const extract = tar.extract();

  // Folders already created and proven to resolve inside the root. Any entry that could change
  // what a path resolves to (a link, a replaced folder) clears it.
  const verified = new Set<string>();
  const ensureInside = async (dest: string): Promise<void> => {
    const parentDir = dirname(dest);
    if (verified.has(parentDir)) return;
    await mkdir(parentDir, { recursive: true });
    const parent = await realpath(parentDir);
    if (!within(realRoot, parent)) throw new Error(`refused: ${dest} would be written through a link outside ${root}`);
    verified.add(parentDir);
  };

  // Small files are written in the background (up to WRITE_AHEAD at once) while the archive is
  // read on: their contents are in memory already, and each write is several file-system calls.
  const writing = new Map<string, Promise<void>>();
  let writeError: unknown;
  const writeFileAt = async (dest: string, data: Buffer, mode: number, mtime: Date): Promise<void> => {
    const existing = await lstat(dest).catch(() => undefined);
    if (existing && (existing.isSymbolicLink() || !existing.isFile())) await rm(dest, { recursive: true, force: true });
    const handle = await open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode);
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
      const name = archivePath(header.name);
      if (typeof name !== 'string') {
        options.onWarning?.(`skipped archive entry ${JSON.stringify(header.name)}: ${name.refused}`);
        return;
      }
      if (!isSelected(name, selected)) return;
      const dest = resolve(realRoot, name);
      if (!within(realRoot, dest)) throw new Error(`refused: ${name} escapes ${root}`);
      const mode = (header.mode ?? 0o644) & 0o7777;
      const mtime = header.mtime ?? new Date();
      switch (header.type) {
        case 'directory': {
          await ensureInside(dest);
          const existing = await lstat(dest).catch(() => undefined);
          if (existing && !existing.isDirectory()) {
            // Replacing a path changes what later paths resolve to: let pending writes land first.
            await settleWrites();
            verified.clear();
            await rm(dest, { force: true });
          }
          await mkdir(dest, { recursive: true });
          await chmod(dest, mode);
          dirTimes.push([dest, mtime]);
          break;
        }
        case 'file':
        case 'contiguous-file': {
          await ensureInside(dest);
          await writing.get(dest);
          if (writeError !== undefined) throw writeError;
          if ((header.size ?? 0) <= SMALL_FILE) {
            const chunks: Buffer[] = [];
            for await (const c of body) chunks.push(c as Buffer);
            const data = Buffer.concat(chunks);
            result.bytes += data.length;
            while (writing.size >= WRITE_AHEAD) await Promise.race(writing.values());
            const job = writeFileAt(dest, data, mode, mtime).catch((err: unknown) => { writeError ??= err; }).finally(() => writing.delete(dest));
            writing.set(dest, job);
            break;
          }
          const existing = await lstat(dest).catch(() => undefined);
          if (existing && (existing.isSymbolicLink() || !existing.isFile())) await rm(dest, { recursive: true, force: true });
          const handle = await open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, mode);
          let written = 0;
          body.on('data', (c: unknown) => { written += (c as Buffer).length; });
          await pipeline(body, createWriteStream('', { fd: handle.fd, autoClose: false }));
          await handle.chmod(mode);
          await handle.close();
          await utimes(dest, mtime, mtime);
          result.bytes += written;
          break;
        }
        case 'symlink': {
          await ensureInside(dest);
          // A link can redirect later paths: no write may still be pending below it, and every
          // folder is proven again afterwards.
          await settleWrites();
          verified.clear();
          const existing = await lstat(dest).catch(() => undefined);
          if (existing) await rm(dest, { recursive: existing.isDirectory() && !existing.isSymbolicLink(), force: true });
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
  // Folder times last: writing their contents changed them.
  for (const [dir, time] of dirTimes.reverse()) await utimes(dir, time, time).catch(() => undefined);
  return result;
}

