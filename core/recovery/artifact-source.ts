import type { Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/core';
import { PassThrough, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BackupRecordCopyEntity, type BackupRecord } from '../db/entities/backup-record.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { checksumGuard, decryptStream, decompressor, type Compression, errorText } from '../engine/index.ts';
import { AppError } from '../http/app-error.ts';

/** What the whole-object check of a copy found so far. */
export interface CopyCheck {
  /** `reading` until the last byte passed the guard (or the read stopped early). */
  state: 'reading' | 'intact' | 'corrupt';
  why: string;
}

export interface OpenedCopy {
  /** Whole reads: the stored bytes behind a length and SHA-256 guard; ranges: the raw slice. */
  stream: Readable;
  copyId: number;
  targetId: number;
  targetName: string;
  /** Whole reads only; the guard marks the copy corrupt (or clears the mark) before it ends. */
  check: CopyCheck;
}

export interface CopyDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
}

export interface OpenOptions {
  /** Storage targets not to read from (replication's destination). */
  exclude?: number[];
  /** Copies not to read (already tried). */
  excludeCopies?: number[];
  /** Read exactly this copy (a restore's second pass reads the copy its check passed). */
  copyId?: number;
  /** Refuse copies marked corrupt rather than try them last. */
  skipCorrupt?: boolean;
  range?: { start: number; end: number };
  /** Aborts opening and reading the copy (a cancel, a shutdown). */
  signal?: AbortSignal;
}

/** Records that a read found the copy's bytes differ from the record; readers try it last from now on. */
export async function markCopyCorrupt(orm: MikroORM, copyId: number, why: string): Promise<void> {
  await orm.em
    .fork()
    .nativeUpdate(
      BackupRecordCopyEntity,
      { id: copyId },
      { corruptAt: new Date(), error: `integrity check failed: ${why}`.slice(0, 2000) },
    );
}

async function clearCorruptMark(orm: MikroORM, copyId: number): Promise<void> {
  await orm.em
    .fork()
    .nativeUpdate(BackupRecordCopyEntity, { id: copyId, corruptAt: { $ne: null } }, { corruptAt: null, error: '' });
}

/**
 * The stored artifact (or one byte range of it) from the first copy that can deliver it:
 * healthy primary copies, then healthy replicas, then copies marked corrupt (a repaired object
 * checks out again and loses its mark); an unreachable or missing copy falls through to the
 * next. A whole read passes the copy's checksum guard, which marks the copy corrupt when its
 * bytes differ from the record, before the stream errors. Every reader goes through here.
 */
export async function openStoredCopy(
  orm: MikroORM,
  opener: StorageTargetOpener,
  record: BackupRecord,
  options: OpenOptions = {},
): Promise<OpenedCopy> {
  const exclude = options.exclude ?? [];
  const excludeCopies = options.excludeCopies ?? [];
  const em = orm.em.fork();
  const rank = (c: { origin: string; corruptAt?: Date | null }) =>
    (c.corruptAt ? 2 : 0) + (c.origin === 'primary' ? 0 : 1);
  const all = (
    await em.find(
      BackupRecordCopyEntity,
      { recordId: record.id, status: 'success', ...(options.copyId ? { id: options.copyId } : {}) },
      { orderBy: { id: 'asc' } },
    )
  )
    .filter((c) => !exclude.includes(c.storageTargetId) && !excludeCopies.includes(c.id))
    .sort((a, b) => rank(a) - rank(b));
  const copies = options.skipCorrupt ? all.filter((c) => !c.corruptAt) : all;
  const targets = new Map(
    (
      await em.find(
        StorageTargetEntity,
        { id: { $in: copies.map((c) => c.storageTargetId) } },
        { populate: ['secrets'] },
      )
    ).map((t) => [t.id, t]),
  );
  const reasons: string[] = all
    .filter((c) => !copies.includes(c))
    .map((c) => `${c.storageTargetName}: ${c.error || 'marked corrupt'}`);
  for (const copy of copies) {
    const target = targets.get(copy.storageTargetId);
    if (!target || !target.enabled) continue;
    try {
      const instance = await opener.open(target);
      const stored = await instance.get(
        copy.storagePath,
        options.range,
        options.signal ? { signal: options.signal } : undefined,
      );
      stored.once('close', () => void instance.close?.()?.catch(() => undefined));
      const check: CopyCheck = { state: 'reading', why: '' };
      const opened = { copyId: copy.id, targetId: target.id, targetName: target.name, check };
      if (options.range) return { ...opened, stream: stored };
      const guard = checksumGuard(
        record.fileSize,
        record.checksum,
        async (why) => {
          check.state = 'corrupt';
          check.why = why;
          await markCopyCorrupt(orm, copy.id, why);
        },
        async () => {
          check.state = 'intact';
          if (copy.corruptAt) await clearCorruptMark(orm, copy.id);
        },
      );
      stored.on('error', (err) => guard.destroy(err));
      // A consumer that stops early (an error further down) releases the storage read too.
      guard.once('close', () => stored.destroy());
      return { ...opened, stream: stored.pipe(guard) };
    } catch (err) {
      reasons.push(`${target.name}: ${errorText(err)}`);
    }
  }
  throw new NoReadableCopyError(
    reasons.length > 0 ? `no copy could be read (${reasons.join('; ')})` : 'no storage target holds this artifact',
    copies.length === 0 && all.length > 0,
  );
}

export class NoReadableCopyError extends Error {
  /** Copies exist, but each one left is marked corrupt (and `skipCorrupt` refused them). */
  readonly onlyCorrupt: boolean;
  constructor(message: string, onlyCorrupt: boolean) {
    super(message);
    this.name = 'NoReadableCopyError';
    this.onlyCorrupt = onlyCorrupt;
  }
}

/**
 * The coded answer for a whole-artifact read no copy could serve (a download, the agent restore
 * relay): 409 when every copy left is marked corrupt, else 502 with the targets' reasons.
 */
export function unreadableArtifact(err: unknown): AppError {
  if (err instanceof NoReadableCopyError && err.onlyCorrupt) {
    return new AppError('BACKUP_ARTIFACT_CORRUPT', {
      message:
        `Every copy of the artifact failed its integrity check (${err.message.replace(/^no copy could be read \((.*)\)$/, '$1')}).`.slice(
          0,
          1000,
        ),
    });
  }
  return new AppError('BACKUP_RECORD_DOWNLOAD_FAILED', {
    message: `${errorText(err)}.`.replace(/^./, (c) => c.toUpperCase()).slice(0, 1000),
  });
}

/**
 * Whether a copy whose read failed is corrupt: the guard's verdict when the read got to the
 * end, else the verdict of reading the copy through again (a decryption, decompression or
 * consumer error stops a read before the guard saw every byte). `undefined` when the copy could
 * not be read again, so the failure cannot be blamed on its bytes.
 */
export async function copyVerdict(
  deps: CopyDeps,
  record: BackupRecord,
  copy: OpenedCopy,
): Promise<CopyCheck | undefined> {
  if (copy.check.state !== 'reading') return copy.check;
  const again = await openStoredCopy(deps.orm, deps.storageOpener, record, { copyId: copy.copyId }).catch(
    () => undefined,
  );
  if (!again) return undefined;
  await pipeline(
    again.stream,
    new Writable({
      write(_c, _e, cb) {
        cb();
      },
    }),
  ).catch(() => undefined);
  return again.check.state === 'reading' ? undefined : again.check;
}

export interface CorruptCopy {
  targetName: string;
  why: string;
}

/**
 * Runs `use` on a whole read of the first copy that serves it; when the attempt fails and the
 * copy's bytes differ from the record, the copy (already marked corrupt by its guard) is
 * logged and `use` runs again on the next copy. Any other failure is `use`'s own and is thrown.
 * Only for consumers that may start over (a check, a scratch restore, an atomic put).
 */
export async function withHealthyCopy<T>(
  deps: CopyDeps,
  record: BackupRecord,
  log: (level: 'info' | 'error', message: string) => void,
  use: (copy: OpenedCopy) => Promise<T>,
  options: { exclude?: number[]; signal?: AbortSignal } = {},
): Promise<{ value: T; copy: OpenedCopy; corrupt: CorruptCopy[] }> {
  const tried: number[] = [];
  const corrupt: CorruptCopy[] = [];
  for (;;) {
    let copy: OpenedCopy;
    try {
      copy = await openStoredCopy(deps.orm, deps.storageOpener, record, {
        exclude: options.exclude,
        excludeCopies: tried,
        signal: options.signal,
      });
    } catch (err) {
      if (corrupt.length === 0) throw err;
      const rest = errorText(err).startsWith('no storage target') ? '' : `; ${errorText(err)}`;
      throw new Error(
        `every copy that could be read failed its integrity check (${corrupt.map((c) => `"${c.targetName}": ${c.why}`).join('; ')})${rest}`,
      );
    }
    tried.push(copy.copyId);
    log('info', `reading from "${copy.targetName}"`);
    // A cancel or shutdown ends the read itself: a consumer waiting on a storage server that
    // stopped answering would otherwise hold the run until the server's own timeout.
    const stopRead = (): void => void copy.stream.destroy(new Error(`stopped: ${errorText(options.signal?.reason)}`));
    if (options.signal?.aborted) stopRead();
    options.signal?.addEventListener('abort', stopRead, { once: true });
    try {
      return { value: await use(copy), copy, corrupt };
    } catch (err) {
      copy.stream.destroy();
      if (options.signal?.aborted) throw err;
      const verdict = await copyVerdict(deps, record, copy);
      if (verdict?.state !== 'corrupt') throw err;
      corrupt.push({ targetName: copy.targetName, why: verdict.why });
      log(
        'error',
        `the copy on "${copy.targetName}" is corrupt (${verdict.why}); it is marked so, trying the next copy`,
      );
    } finally {
      options.signal?.removeEventListener('abort', stopRead);
    }
  }
}

/**
 * The artifact's raw bytes (tar or dump) from a whole read of a copy (its stream is already
 * length and SHA-256 checked): age decryption, then decompression. A mismatch, a wrong key or
 * tampered data errors the returned stream before it ends, so a consumer never sees a clean
 * end of a bad artifact.
 */
/** The stored bytes checked and decrypted, and decompressed unless `decompress` is false. */
export function rawStream(
  copy: OpenedCopy,
  record: BackupRecord,
  identity: string,
  onStoredBytes?: (n: number) => void,
  decompress = true,
): Readable {
  const stages: Array<NodeJS.ReadWriteStream> = [];
  if (onStoredBytes) {
    stages.push(
      new Transform({
        transform(chunk: Buffer, _e, cb) {
          onStoredBytes(chunk.length);
          cb(null, chunk);
        },
      }),
    );
  }
  if (record.encrypted) stages.push(decryptStream(identity));
  if (decompress) stages.push(decompressor(record.compression as Compression));
  // The promise form owns every stage's errors; the first one is handed to the consumer's end
  // of the chain. The guard sits before decryption, so a bad artifact never reaches a clean end.
  const out = new PassThrough();
  // A later stage may fail after the consumer already stopped on an earlier error.
  out.on('error', () => undefined);
  pipeline([copy.stream, ...stages, out] as unknown as [Readable, PassThrough]).catch((err: unknown) =>
    out.destroy(err instanceof Error ? err : new Error(String(err))),
  );
  return out;
}
