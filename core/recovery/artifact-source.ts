import type { Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/core';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BackupRecordCopyEntity, type BackupRecord } from '../db/entities/backup-record.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { checksumGuard } from '../engine/checksum-guard.ts';
import { decryptStream } from '../engine/encryption.ts';
import { decompressor, type Compression } from '../engine/compression.ts';

export interface OpenedCopy {
  stream: Readable;
  targetId: number;
  targetName: string;
}

/**
 * The stored artifact (or one byte range of it) from the first copy that can deliver it,
 * primary copies first, then replicas; an unreachable or missing copy falls through to the
 * next. Downloads, restores, verification and replication all read through here.
 */
export async function openStoredCopy(orm: MikroORM, opener: StorageTargetOpener, record: BackupRecord, options: { exclude?: number[]; range?: { start: number; end: number } } = {}): Promise<OpenedCopy> {
  const exclude = options.exclude ?? [];
  const em = orm.em.fork();
  const copies = (await em.find(BackupRecordCopyEntity, { recordId: record.id, status: 'success' }, { orderBy: { id: 'asc' } }))
    .filter((c) => !exclude.includes(c.storageTargetId))
    .sort((a, b) => (a.origin === b.origin ? 0 : a.origin === 'primary' ? -1 : 1));
  const targets = new Map((await em.find(StorageTargetEntity, { id: { $in: copies.map((c) => c.storageTargetId) } }, { populate: ['secrets'] })).map((t) => [t.id, t]));
  const reasons: string[] = [];
  for (const copy of copies) {
    const target = targets.get(copy.storageTargetId);
    if (!target || !target.enabled) continue;
    try {
      const instance = await opener.open(target);
      const stream = await instance.get(copy.storagePath, options.range);
      stream.once('close', () => void instance.close?.()?.catch(() => undefined));
      return { stream, targetId: target.id, targetName: target.name };
    } catch (err) {
      reasons.push(`${target.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error(reasons.length > 0 ? `no copy could be read (${reasons.join('; ')})` : 'no storage target holds this artifact');
}

/**
 * The artifact's raw bytes (tar or dump): stored bytes -> length and SHA-256 check -> age
 * decryption -> decompression. A mismatch, a wrong key or tampered data errors the returned
 * stream before it ends, so a consumer never sees a clean end of a bad artifact.
 */
export function rawStream(stored: Readable, record: BackupRecord, identity: string, onStoredBytes?: (n: number) => void): Readable {
  const guard = checksumGuard(record.fileSize, record.checksum, () => undefined);
  const stages: Array<NodeJS.ReadWriteStream> = [];
  if (onStoredBytes) {
    stages.push(new Transform({ transform(chunk: Buffer, _e, cb) { onStoredBytes(chunk.length); cb(null, chunk); } }));
  }
  stages.push(guard);
  if (record.encrypted) stages.push(decryptStream(identity));
  stages.push(decompressor(record.compression as Compression));
  // The promise form owns every stage's errors; the first one is handed to the consumer's end
  // of the chain. The guard runs before decryption, so a bad artifact never reaches a clean end.
  const out = new PassThrough();
  // A later stage may fail after the consumer already stopped on an earlier error.
  out.on('error', () => undefined);
  pipeline([stored, ...stages, out] as unknown as [Readable, PassThrough]).catch((err: unknown) => out.destroy(err instanceof Error ? err : new Error(String(err))));
  return out;
}
