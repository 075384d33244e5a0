import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readFile, rmdir, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import type { Readable } from 'node:stream';
import {
  diskUsage,
  ProviderError,
  type ObjectInfo,
  type StorageInstance,
  type TestResult,
} from '@backplane/plugin-api';
import { writeAtomically } from './atomic-write.ts';
import { errnoCode, isMissing, toProviderError } from './local-errors.ts';
import { inside, keySegments, prefixParts, segmentProblem, TEMP_NAME } from './local-keys.ts';
import { removeStaleTemporaries, removeTemporariesOf } from './local-temporaries.ts';
import { walkFolders } from './folder-walk.ts';

/** Bigger than fs's 64 KiB default: artifacts are large and read front to back. */
const READ_CHUNK = 1024 * 1024;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

function checkRange(range: { start: number; end?: number }): void {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0)
    throw new ProviderError('permanent', `local disk: invalid range start ${String(start)}`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new ProviderError('permanent', `local disk: invalid range end ${String(end)} (start ${start})`);
}

function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  for (; n >= 1024 && i < units.length - 1; i++) n /= 1024;
  return `${n.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

/**
 * One local folder as a storage target. Keys map to files below `base`; an object is a regular
 * file (symlinks and folders are not objects). `base` itself is never created, and every
 * operation fails (kind `permanent`) while it is missing: a missing base is usually an unmounted
 * disk, and filling the mount point, or reporting every backup as gone, would be worse.
 */
export class LocalDiskStorage implements StorageInstance {
  readonly #base: string;
  #baseChecked = false;

  constructor(base: string) {
    this.#base = base;
  }

  #path(key: string): string {
    return inside(this.#base, keySegments(key), 'key');
  }

  async #requireBase(): Promise<void> {
    if (this.#baseChecked) return;
    let st: Stats;
    try {
      st = await stat(this.#base);
    } catch (err) {
      if (isMissing(err))
        throw new ProviderError(
          'permanent',
          `local disk: basePath ${this.#base} does not exist (is the disk mounted?)`,
          { cause: err },
        );
      throw toProviderError(err, `checking basePath ${this.#base}`);
    }
    if (!st.isDirectory())
      throw new ProviderError('permanent', `local disk: basePath ${this.#base} is not a directory`);
    this.#baseChecked = true;
  }

  /** Removes folders left empty, from `dir` up to (not including) the base. Best effort. */
  async #prune(dir: string): Promise<void> {
    const root = this.#base.endsWith(sep) ? this.#base : this.#base + sep;
    for (let d = dir; d.startsWith(root) && d !== this.#base; d = dirname(d)) {
      try {
        await rmdir(d);
      } catch {
        return; // not empty (or already gone, or not ours to remove): stop climbing
      }
    }
  }

  async put(
    key: string,
    body: Readable,
    meta: { size?: number; contentType?: string; signal?: AbortSignal } = {},
  ): Promise<{ size: number }> {
    let target: string;
    try {
      target = this.#path(key);
      if (meta.size !== undefined && (!Number.isSafeInteger(meta.size) || meta.size < 0)) {
        throw new ProviderError('permanent', `local disk: invalid size ${String(meta.size)}`);
      }
      await this.#requireBase();
    } catch (err) {
      body.destroy();
      throw err;
    }
    return writeAtomically(target, body, { size: meta.size, signal: meta.signal, prune: (dir) => this.#prune(dir) });
  }

  async get(key: string, range?: { start: number; end?: number }): Promise<Readable> {
    const path = this.#path(key);
    if (range) checkRange(range);
    await this.#requireBase();
    let handle: FileHandle | undefined;
    try {
      // O_NOFOLLOW: a symlink is not an object, so it cannot lead a read outside the base.
      handle = await open(path, constants.O_RDONLY | O_NOFOLLOW);
      if (!(await handle.stat()).isFile())
        throw Object.assign(new Error(`${path} is not a regular file`), { code: 'ENOENT' });
    } catch (err) {
      await handle?.close().catch(() => undefined);
      if (isMissing(err) || errnoCode(err) === 'ELOOP')
        throw new ProviderError('not_found', `local disk: no object ${JSON.stringify(key)}`, { cause: err });
      throw toProviderError(err, `opening ${path}`);
    }
    // A start past the end yields no bytes; an end past the end is clamped (as fs and HTTP do).
    return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_CHUNK });
  }

  async *list(prefix: string): AsyncIterable<ObjectInfo> {
    const { folders } = prefixParts(prefix);
    const start = folders.length > 0 ? inside(this.#base, folders, 'prefix') : this.#base;
    await this.#requireBase();
    // Names no key could have (uploads in progress, backslashes...) are not objects of this target.
    const walk = walkFolders(
      start,
      folders.length > 0 ? `${folders.join('/')}/` : '',
      (name, folder) => segmentProblem(name) === undefined && (folder.startsWith(prefix) || prefix.startsWith(folder)),
    );
    for await (const folder of walk) {
      for (const entry of folder.entries) {
        if (!entry.isFile() || segmentProblem(entry.name) !== undefined) continue;
        const key = folder.key + entry.name;
        if (!key.startsWith(prefix)) continue;
        let st: Stats;
        try {
          st = await lstat(join(folder.dir, entry.name));
        } catch (err) {
          if (isMissing(err)) continue; // deleted while we walked
          throw toProviderError(err, `reading ${key}`);
        }
        yield { key, size: st.size, modifiedAt: st.mtime };
      }
    }
  }

  async stat(key: string): Promise<ObjectInfo | undefined> {
    const path = this.#path(key);
    await this.#requireBase();
    try {
      const st = await lstat(path);
      return st.isFile() ? { key, size: st.size, modifiedAt: st.mtime } : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw toProviderError(err, `reading ${path}`);
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.#path(key);
    await this.#requireBase();
    try {
      if (!(await lstat(path)).isFile()) return; // a folder or a symlink is no object: nothing to delete
      await unlink(path);
    } catch (err) {
      if (isMissing(err)) return;
      throw toProviderError(err, `deleting ${path}`);
    }
    await this.#prune(dirname(path));
  }

  /** The file system's figures (df), not the sum of this target's objects. */
  async usage(): Promise<{ usedBytes: number; totalBytes: number; freeBytes: number }> {
    try {
      return await diskUsage(this.#base);
    } catch (err) {
      throw toProviderError(err, `reading the capacity of ${this.#base}`);
    }
  }

  async removeTemporaries(key: string): Promise<number> {
    const path = this.#path(key);
    await this.#requireBase();
    const removed = await removeTemporariesOf(path);
    if (removed > 0) await this.#prune(dirname(path));
    return removed;
  }

  async removeStaleTemporaries(olderThan: Date, keep: Iterable<string> = []): Promise<number> {
    await this.#requireBase();
    return removeStaleTemporaries(this.#base, olderThan, keep, (dir) => this.#prune(dir));
  }

  /** Writes, reads back and deletes a small probe file; reports why not instead of throwing. */
  async testConnection(): Promise<TestResult> {
    const base = this.#base;
    try {
      const st = await stat(base);
      if (!st.isDirectory()) return { success: false, message: `basePath ${base} is not a directory` };
    } catch (err) {
      const code = errnoCode(err);
      if (code === 'ENOENT')
        return { success: false, message: `basePath ${base} does not exist (create it, or mount the disk)` };
      if (code === 'ENOTDIR')
        return { success: false, message: `basePath ${base} cannot exist: a part of the path is a file, not a folder` };
      return { success: false, message: `basePath ${base} is not accessible: ${(err as Error).message}` };
    }
    // Named like an upload in progress, so a concurrent list() never shows it.
    const probe = join(base, `.backplane-probe.${randomBytes(8).toString('hex')}.partial`);
    const data = randomBytes(64);
    try {
      await writeFile(probe, data, { flag: 'wx', mode: 0o600, flush: true });
      const back = await readFile(probe);
      if (!back.equals(data))
        return { success: false, message: `basePath ${base}: a probe file read back different bytes` };
      await unlink(probe);
      const usage = await this.usage().catch(() => undefined);
      const free = usage ? `; ${formatBytes(usage.freeBytes)} free of ${formatBytes(usage.totalBytes)}` : '';
      return { success: true, message: `basePath ${base} is writable${free}` };
    } catch (err) {
      const code = errnoCode(err);
      const why = code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? 'is not writable' : 'failed a write test';
      return { success: false, message: `basePath ${base} ${why}: ${(err as Error).message}` };
    } finally {
      await unlink(probe).catch(() => undefined);
    }
  }
}
