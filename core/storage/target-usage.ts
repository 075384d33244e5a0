import type { EntityManager } from '@mikro-orm/core';
import { BackupRecordCopyEntity } from '../db/entities/backup-record.ts';

/** What Backplane itself stored on a target: the copies that hold an artifact. */
export async function recordedUsage(em: EntityManager, targetId: number): Promise<{ count: number; bytes: number }> {
  const copies = await em.find(
    BackupRecordCopyEntity,
    { storageTargetId: targetId, status: 'success' },
    { fields: ['fileSize'] },
  );
  return { count: copies.length, bytes: copies.reduce((n, c) => n + c.fileSize, 0) };
}

/** Copies still on the target (held or being deleted): a target with any cannot be removed. */
export async function heldCopies(em: EntityManager, targetId: number): Promise<number> {
  return em.count(BackupRecordCopyEntity, { storageTargetId: targetId, status: { $in: ['success', 'pending'] } });
}
