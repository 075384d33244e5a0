import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Header, Pack } from 'tar-stream';
import type { ManifestEntry } from './manifest-entry.ts';
import { drained, quiet } from './tar-entry-flow.ts';

type Headers = Partial<Header> & Pick<Header, 'name'>;

const READ_CHUNK = 256 * 1024;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** Like GNU tar: the absolute path without its leading `/`. */
export function entryName(absPath: string): string {
  return absPath.replace(/^\/+/, '');
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export type Prefetched = { fst: Stats; data: Buffer } | { error: unknown };

/** A small file read whole, ahead of its turn (so many small files overlap their I/O). */
export async function readSmall(abs: string): Promise<Prefetched> {
  let handle: FileHandle | undefined;
  try {
    // O_NONBLOCK: a file swapped for a FIFO since lstat must not hang the backup.
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

/**
 * Writes entries into one tar pack, one at a time, and records each in the manifest once it is
 * written. A file that changes while it is read still gets exactly the size its header announced.
 */
export class TarEntries {
  readonly #pack: Pack;
  readonly #record: (entry: ManifestEntry) => void;
  readonly #warn: (message: string, path: string) => void;
  readonly #signal: AbortSignal | undefined;
  // One read buffer per archive (every chunk is copied before it is queued): a buffer per file
  // made the garbage collector a fifth of a many-small-files backup.
  readonly #buf = Buffer.allocUnsafe(READ_CHUNK);

  constructor(
    pack: Pack,
    record: (entry: ManifestEntry) => void,
    warn: (message: string, path: string) => void,
    signal: AbortSignal | undefined,
  ) {
    this.#pack = pack;
    this.#record = record;
    this.#warn = warn;
    this.#signal = signal;
  }

  checkAborted(): void {
    const signal = this.#signal;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (this.#pack.destroyed) throw new Error('tar stream was destroyed');
  }

  #headerOnly(header: Headers): Promise<void> {
    return new Promise((res, rej) => {
      quiet(this.#pack.entry(header, (err) => (err ? rej(err) : res())));
    });
  }

  async symlink(abs: string, st: Stats, linkname: string): Promise<void> {
    const name = entryName(abs);
    const mode = st.mode & 0o7777;
    await this.#headerOnly({ name, type: 'symlink', linkname, mode, mtime: st.mtime, uid: st.uid, gid: st.gid });
    this.#record({ path: name, size: 0, mtime: st.mtime, mode, type: 'symlink', linkname });
  }

  async directory(abs: string, st: Stats): Promise<void> {
    const name = entryName(abs);
    const mode = st.mode & 0o7777;
    await this.#headerOnly({ name, type: 'directory', mode, mtime: st.mtime, uid: st.uid, gid: st.gid });
    this.#record({ path: name, size: 0, mtime: st.mtime, mode, type: 'directory' });
  }

  /** A file of any size, streamed through the shared buffer. */
  async file(abs: string, st: Stats): Promise<void> {
    const warn = this.#warn;
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
      const header: Headers = {
        name: entryName(abs),
        type: 'file',
        size,
        mode: fst.mode & 0o7777,
        mtime: fst.mtime,
        uid: fst.uid,
        gid: fst.gid,
      };
      let done!: Promise<void>;
      const entry = quiet(this.#pack.entry(header, (err) => (err ? rejectDone(err) : resolveDone())));
      let resolveDone!: () => void;
      let rejectDone!: (e: Error) => void;
      done = new Promise<void>((res, rej) => {
        resolveDone = res;
        rejectDone = rej;
      });
      done.catch(() => undefined);
      const buf = this.#buf;
      const signal = this.#signal;
      // The header announced `size` bytes: exactly that many are written, whatever the file does meanwhile.
      let written = 0;
      let readError: unknown;
      while (written < size) {
        this.checkAborted();
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
          this.checkAborted();
          const n = Math.min(READ_CHUNK, size - written);
          if (!entry.write(Buffer.alloc(n))) await drained(entry, signal);
          written += n;
        }
      }
      entry.end(undefined);
      await done;
      this.#record({ path: header.name, size, mtime: fst.mtime, mode: fst.mode & 0o7777, type: 'file' });
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** A small file already read whole by `readSmall`. */
  async prefetched(abs: string, got: Prefetched): Promise<void> {
    if ('error' in got) {
      this.#warn(`skipped ${abs}: ${describe(got.error)}`, abs);
      return;
    }
    const { fst } = got;
    let data = got.data;
    if (data.length < fst.size) {
      this.#warn(
        `${abs}: file shrank while being read; padded the last ${fst.size - data.length} bytes with zeros`,
        abs,
      );
      data = Buffer.concat([data, Buffer.alloc(fst.size - data.length)]);
    }
    const name = entryName(abs);
    await new Promise<void>((res, rej) => {
      quiet(
        this.#pack.entry(
          { name, type: 'file', size: fst.size, mode: fst.mode & 0o7777, mtime: fst.mtime, uid: fst.uid, gid: fst.gid },
          data,
          (err) => (err ? rej(err) : res()),
        ),
      );
    });
    this.#record({ path: name, size: fst.size, mtime: fst.mtime, mode: fst.mode & 0o7777, type: 'file' });
  }
}
