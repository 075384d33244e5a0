import { createHash } from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { MikroORM } from '@mikro-orm/core';
import { BackupRecordCopyEntity, type BackupRecord } from '../../db/entities/backup-record.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { AppError } from '../../http/app-error.ts';
import type { StorageTargetOpener } from '../../storage/target-opener.ts';

export interface ByteRange { start: number; end: number }

/**
 * One `bytes=` range of an artifact of `size` bytes (RFC 9110): `a-b`, `a-` or `-n`. Several
 * ranges are answered with the whole artifact (a multipart reply buys clients nothing here);
 * a syntactically foreign header is ignored; an unsatisfiable one is 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined;
  const [, a, b] = m;
  if (a === '' && b === '') return undefined;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) throw new AppError('BACKUP_RANGE_NOT_SATISFIABLE');
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return undefined;
  }
  if (start >= size || size === 0) throw new AppError('BACKUP_RANGE_NOT_SATISFIABLE');
  return { start, end };
}

/**
 * Counts and hashes the bytes passing through; at the end, a length or SHA-256 that differs
 * from the record fails the stream, so the client sees an aborted transfer, never a quietly
 * corrupt file.
 */
export function checksumGuard(expectedSize: number, expectedSha256: string, onMismatch: (why: string) => void): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      hash.update(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      const actual = hash.digest('hex');
      if (seen !== expectedSize || (expectedSha256 !== '' && actual !== expectedSha256)) {
        const why = seen !== expectedSize ? `the stored object has ${seen} bytes, the record says ${expectedSize}` : `SHA-256 ${actual} differs from the record's ${expectedSha256}`;
        onMismatch(why);
        cb(new Error(`artifact check failed: ${why}`));
        return;
      }
      cb();
    },
  });
  // Consumers (a put, a pipeline, a reply) see the error through their own listeners; this one
  // only keeps a consumer that has not attached yet from turning it into a process crash.
  guard.on('error', () => undefined);
  return guard;
}

/**
 * Opens the artifact from the first copy that can deliver it (in target order); a copy that
 * is missing or unreachable falls through to the next.
 */
export async function openArtifact(orm: MikroORM, opener: StorageTargetOpener, record: BackupRecord, range: ByteRange | undefined): Promise<{ stream: Readable; targetName: string }> {
  const em = orm.em.fork();
  const copies = await em.find(BackupRecordCopyEntity, { recordId: record.id, status: 'success' }, { orderBy: { id: 'asc' } });
  const targets = new Map((await em.find(StorageTargetEntity, { id: { $in: copies.map((c) => c.storageTargetId) } }, { populate: ['secrets'] })).map((t) => [t.id, t]));
  const reasons: string[] = [];
  for (const copy of copies) {
    const target = targets.get(copy.storageTargetId);
    if (!target) continue;
    try {
      const instance = await opener.open(target);
      const stream = await instance.get(copy.storagePath, range ? { start: range.start, end: range.end } : undefined);
      const close = (): void => void instance.close?.()?.catch(() => undefined);
      stream.once('close', close);
      return { stream, targetName: target.name };
    } catch (err) {
      reasons.push(`${target.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new AppError('BACKUP_RECORD_DOWNLOAD_FAILED', { message: reasons.length > 0 ? `No copy could be read (${reasons.join('; ')}).`.slice(0, 1000) : 'No storage target holds this artifact.' });
}
