import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { addAbortSignal, type Readable } from 'node:stream';
import { ProviderError, temporaryUploadName } from '@backplane/plugin-api';
import { errnoCode, toProviderError } from './local-errors.ts';

export interface AtomicWriteOptions {
  /** The exact length announced by the caller; a stream of another length is refused. */
  size?: number;
  signal?: AbortSignal;
  /** Called with the parent folder after a failure, to remove folders this write created. */
  prune?: (dir: string) => Promise<void>;
}

/**
 * `.<name>.<16 hex>.partial` (@backplane/plugin-api, object-keys.ts): the name is shortened so the temp
 * name stays within NAME_MAX (255 bytes), and the hex starts with a digest of the final name so
 * removeTemporaries can find a crashed upload's file again.
 */
export const tempName = temporaryUploadName;

async function syncDir(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch (err) {
    // Some file systems (and Windows) cannot fsync a directory; the rename itself still happened.
    const code = errnoCode(err);
    if (code !== 'EINVAL' && code !== 'ENOTSUP' && code !== 'EISDIR' && code !== 'EPERM') throw err;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Creates the parent folders and the temp file. A concurrent delete may prune a just-created
 * empty folder before the temp file lands in it, so that one race is retried (a few times, no more).
 */
async function openTemp(dir: string, tmp: string): Promise<{ handle: FileHandle; created: string | undefined }> {
  let created: string | undefined;
  for (let attempt = 1; ; attempt++) {
    created = (await mkdir(dir, { recursive: true })) ?? created;
    try {
      return { handle: await open(tmp, 'wx', 0o600), created };
    } catch (err) {
      if (errnoCode(err) !== 'ENOENT' || attempt >= 3) throw err;
    }
  }
}

/** Bytes gathered into one `writev`. */
const WRITE_BATCH = 4 * 1024 * 1024;

async function writeBatch(handle: FileHandle, batch: Uint8Array[]): Promise<void> {
  if (batch.length === 1) return writeAll(handle, batch[0]!);
  const total = batch.reduce((n, b) => n + b.byteLength, 0);
  const { bytesWritten } = await handle.writev(batch);
  if (bytesWritten === total) return;
  // A short writev: the rest, chunk by chunk.
  let skip = bytesWritten;
  for (const chunk of batch) {
    if (skip >= chunk.byteLength) {
      skip -= chunk.byteLength;
      continue;
    }
    await writeAll(handle, skip > 0 ? chunk.subarray(skip) : chunk);
    skip = 0;
  }
}

async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    if (bytesWritten <= 0) throw new ProviderError('transient', 'local disk: the file system accepted no bytes');
    offset += bytesWritten;
  }
}

function sizeMismatch(expected: number, got: string): ProviderError {
  return new ProviderError(
    'permanent',
    `local disk: the stream is ${got} bytes, but its size was given as ${expected}`,
  );
}

/**
 * Streams `body` into `target` so that `target` is either absent, its previous content, or
 * the complete new content, never a part: the bytes go to a temp file in the same folder, which
 * is fsynced, checked against the announced size, renamed over `target`, and the folder fsynced.
 * On any failure the temp file is removed and the promise rejects.
 */
export async function writeAtomically(
  target: string,
  body: Readable,
  options: AtomicWriteOptions = {},
): Promise<{ size: number }> {
  const dir = dirname(target);
  const tmp = join(dir, tempName(basename(target)));
  const expected = options.size;
  let handle: FileHandle | undefined;
  let created: string | undefined;
  let size = 0;
  try {
    ({ handle, created } = await openTemp(dir, tmp));
    if (options.signal) addAbortSignal(options.signal, body);
    for await (const first of body as AsyncIterable<unknown>) {
      // Whatever else is buffered already goes in the same write: one thread-pool round trip per
      // 64 KiB chunk made the disk write the slowest stage of a backup (docs/benchmarks.md).
      const batch: Uint8Array[] = [];
      let batchBytes = 0;
      for (let chunk: unknown = first; chunk !== null; chunk = batchBytes < WRITE_BATCH ? body.read() : null) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        if (!(bytes instanceof Uint8Array))
          throw new ProviderError('permanent', 'local disk: the stream must yield bytes or strings');
        batch.push(bytes);
        batchBytes += bytes.byteLength;
      }
      size += batchBytes;
      if (expected !== undefined && size > expected) throw sizeMismatch(expected, `more than ${expected}`);
      await writeBatch(handle, batch);
    }
    if (expected !== undefined && size !== expected) throw sizeMismatch(expected, String(size));
    await handle.sync();
    await handle.close();
    handle = undefined;
    await rename(tmp, target);
    // The rename is durable once the folder is; folders this write created need their parents synced too.
    await syncDir(dir);
    for (let d = dir; created !== undefined && d !== dirname(created) && d !== dirname(d); ) {
      d = dirname(d);
      await syncDir(d);
    }
    return { size };
  } catch (err) {
    await handle?.close().catch(() => undefined);
    await rm(tmp, { force: true }).catch(() => undefined);
    if (!body.destroyed) body.destroy();
    if (created !== undefined) await options.prune?.(dir).catch(() => undefined);
    throw toProviderError(err, `writing ${target}`);
  }
}
