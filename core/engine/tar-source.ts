import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import { basename, join, matchesGlob, resolve } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { Header } from 'tar-stream';

type Headers = Partial<Header> & Pick<Header, 'name'>;

/**
 * A tar (POSIX ustar/pax, as tar-stream writes it) of a file task's paths.
 *
 * Entry names: the absolute path without its leading `/`, like GNU tar does, so
 * `tar -x -C /restore` puts `/etc/hosts` at `/restore/etc/hosts` and the paths of several
 * sources never collide. Regular files, directories and symbolic links (stored as links, never
 * followed) are archived; sockets, FIFOs and devices are skipped with a warning. Hard links are
 * stored as independent copies.
 */

export type ManifestEntryType = 'file' | 'directory' | 'symlink';

export interface ManifestEntry {
  /** The entry name in the tar (no leading `/`; directories without a trailing `/`). */
  path: string;
  /** Bytes of content (0 for directories and links). */
  size: number;
  mtime: Date;
  /** Permission bits (e.g. 0o644). */
  mode: number;
  type: ManifestEntryType;
  /** Target of a symbolic link. */
  linkname?: string;
}

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

const READ_CHUNK = 256 * 1024;
/** Files up to this size are read whole, ahead of their turn. */
const SMALL_FILE = 256 * 1024;
/** Children looked at (and small files read) concurrently. */
const PREFETCH_BATCH = 32;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

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

function entryName(absPath: string): string {
  return absPath.replace(/^\/+/, '');
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * A tar entry whose errors reach its callback only. An abort destroys the pack and with it the
 * open entry, which then emits its error again; unheard, that 'error' would kill the process.
 */
export function quiet<T extends { on(event: 'error', fn: () => void): unknown }>(entry: T): T {
  entry.on('error', () => undefined);
  return entry;
}

/** Resolves when `w` can take more, closes, or the run is aborted (a stopped consumer never drains). */
export function drained(w: { once(ev: string, fn: () => void): unknown; off(ev: string, fn: () => void): unknown }, signal?: AbortSignal): Promise<void> {
  return new Promise((res) => {
    const done = (): void => {
      w.off('drain', done);
      w.off('close', done);
      signal?.removeEventListener('abort', done);
      res();
    };
    w.once('drain', done);
    w.once('close', done);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}

export function createTarSource(options: TarSourceOptions): TarSource {
  const pack = tar.pack();
  const manifest: ManifestEntry[] = [];
  const record = options.onEntry ?? ((entry: ManifestEntry): void => void manifest.push(entry));
  const excludes = options.excludes ?? [];
  const warn = (message: string, path: string): void => options.onWarning?.(message, path);
  const signal = options.signal;

  // One read buffer per archive (every chunk is copied before it is queued): a buffer per file
  // made the garbage collector a fifth of a many-small-files backup.
  const buf = Buffer.allocUnsafe(READ_CHUNK);

  const checkAborted = (): void => {
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (pack.destroyed) throw new Error('tar stream was destroyed');
  };

  const addHeaderOnly = (header: Headers): Promise<void> =>
    new Promise((res, rej) => {
      quiet(pack.entry(header, (err) => (err ? rej(err) : res())));
    });

  async function addFile(abs: string, st: Stats): Promise<void> {
    let handle: FileHandle;
    try {
      // O_NONBLOCK: a file swapped for a FIFO since lstat must not hang the backup.
      handle = await open(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    } catch (err) {
      warn(`skipped ${abs}: ${describe(err)}`, abs);
      return;
    }
    try {
      const fst = await handle.stat();
      if (!fst.isFile()) {
        warn(`skipped ${abs}: no longer a regular file`, abs);
        return;
      }
      if (fst.ino !== st.ino) st = fst;
      const size = fst.size;
      const header: Headers = { name: entryName(abs), type: 'file', size, mode: fst.mode & 0o7777, mtime: fst.mtime, uid: fst.uid, gid: fst.gid };
      let done!: Promise<void>;
      const entry = quiet(pack.entry(header, (err) => (err ? rejectDone(err) : resolveDone())));
      let resolveDone!: () => void;
      let rejectDone!: (e: Error) => void;
      done = new Promise<void>((res, rej) => {
        resolveDone = res;
        rejectDone = rej;
      });
      done.catch(() => undefined);
      // The header announced `size` bytes: exactly that many are written, whatever the file does meanwhile.
      let written = 0;
      let readError: unknown;
      while (written < size) {
        checkAborted();
        let n = 0;
        try {
          ({ bytesRead: n } = await handle.read(buf, 0, Math.min(READ_CHUNK, size - written), written));
        } catch (err) {
          readError = err;
        }
        if (readError !== undefined || n === 0) break;
        // copy: the buffer is reused for the next read
        if (!entry.write(Buffer.from(buf.subarray(0, n)))) await drained(entry, signal);
        written += n;
      }
      if (written < size) {
        const why = readError !== undefined ? describe(readError) : 'file shrank while being read';
        warn(`${abs}: ${why}; padded the last ${size - written} bytes with zeros`, abs);
        while (written < size) {
          checkAborted();
          const n = Math.min(READ_CHUNK, size - written);
          if (!entry.write(Buffer.alloc(n))) await drained(entry, signal);
          written += n;
        }
      }
      entry.end(undefined);
      await done;
      record({ path: header.name, size, mtime: fst.mtime, mode: fst.mode & 0o7777, type: 'file' });
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** A small file read whole, ahead of its turn (so many small files overlap their I/O). */
  async function readSmall(abs: string): Promise<{ fst: Stats; data: Buffer } | { error: unknown }> {
    let handle: FileHandle | undefined;
    try {
      handle = await open(abs, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
      const fst = await handle.stat();
      if (!fst.isFile()) return { error: new Error('no longer a regular file') };
      const data = Buffer.allocUnsafe(fst.size);
      let got = 0;
      while (got < fst.size) {
        const { bytesRead } = await handle.read(data, got, fst.size - got, got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return { fst, data: got === fst.size ? data : data.subarray(0, got) };
    } catch (error) {
      return { error };
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }

  async function addPrefetched(abs: string, got: { fst: Stats; data: Buffer } | { error: unknown }): Promise<void> {
    if ('error' in got) {
      warn(`skipped ${abs}: ${describe(got.error)}`, abs);
      return;
    }
    const { fst } = got;
    let data = got.data;
    if (data.length < fst.size) {
      warn(`${abs}: file shrank while being read; padded the last ${fst.size - data.length} bytes with zeros`, abs);
      data = Buffer.concat([data, Buffer.alloc(fst.size - data.length)]);
    }
    const name = entryName(abs);
    await new Promise<void>((res, rej) => {
      quiet(pack.entry({ name, type: 'file', size: fst.size, mode: fst.mode & 0o7777, mtime: fst.mtime, uid: fst.uid, gid: fst.gid }, data, (err) => (err ? rej(err) : res())));
    });
    record({ path: name, size: fst.size, mtime: fst.mtime, mode: fst.mode & 0o7777, type: 'file' });
  }

  async function walk(abs: string, known?: Stats): Promise<void> {
    checkAborted();
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
    const name = entryName(abs);
    const mode = st.mode & 0o7777;
    if (st.isFile()) {
      await addFile(abs, st);
    } else if (st.isSymbolicLink()) {
      let linkname: string;
      try {
        linkname = await readlink(abs);
      } catch (err) {
        warn(`skipped ${abs}: ${describe(err)}`, abs);
        return;
      }
      await addHeaderOnly({ name, type: 'symlink', linkname, mode, mtime: st.mtime, uid: st.uid, gid: st.gid });
      record({ path: name, size: 0, mtime: st.mtime, mode, type: 'symlink', linkname });
    } else if (st.isDirectory()) {
      let children: string[] = [];
      try {
        children = (await readdir(abs)).sort();
      } catch (err) {
        warn(`${abs}: cannot list its contents (${describe(err)}); archived as an empty folder`, abs);
      }
      if (name !== '') {
        await addHeaderOnly({ name, type: 'directory', mode, mtime: st.mtime, uid: st.uid, gid: st.gid });
        record({ path: name, size: 0, mtime: st.mtime, mode, type: 'directory' });
      }
      // Children in batches: their lstat calls, and the contents of the small files among them,
      // run concurrently; entries are still written one by one, in name order.
      for (let i = 0; i < children.length; i += PREFETCH_BATCH) {
        checkAborted();
        const batch = children.slice(i, i + PREFETCH_BATCH).map((c) => join(abs, c)).filter((p) => !isExcluded(p, excludes));
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
          if (pre) await addPrefetched(p, await pre);
          else await walk(p, cst);
        }
      }
    } else {
      const kind = st.isFIFO() ? 'a FIFO' : st.isSocket() ? 'a socket' : st.isBlockDevice() || st.isCharacterDevice() ? 'a device' : 'not a regular file';
      warn(`skipped ${abs}: ${kind}`, abs);
    }
  }

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
        await walk(abs, st);
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
