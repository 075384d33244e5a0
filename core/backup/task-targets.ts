import type { EntityManager } from '@mikro-orm/core';
import { BackupTaskTargetEntity } from '../db/entities/backup-task.ts';
import { StorageTargetEntity, type StorageTarget } from '../db/entities/storage-target.ts';

/** A task's storage targets in the task's order, with their sealed secrets loaded (a run opens them). */
export async function taskTargets(em: EntityManager, taskId: number): Promise<StorageTarget[]> {
  const links = await em.find(BackupTaskTargetEntity, { taskId }, { orderBy: { position: 'asc' } });
  const targets = await em.find(
    StorageTargetEntity,
    { id: { $in: links.map((l) => l.storageTargetId) } },
    { populate: ['secrets'] },
  );
  const byId = new Map(targets.map((t) => [t.id, t]));
  return links.map((l) => byId.get(l.storageTargetId)).filter((t) => t !== undefined);
}
