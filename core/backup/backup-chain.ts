import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { AggregateSql } from '../db/aggregate-sql.ts';
import { BackupRecordCopyEntity, BackupRecordEntity, type BackupRecord } from '../db/entities/backup-record.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { errorText, type CarriedEntry } from '../engine/index.ts';

/**
 * Differential chains (docs/differential.md): a differential holds what changed since one full,
 * its base; restoring it applies the base first. Here: which full a differential is made
 * against, the manifest rows it takes over from it, and which records depend on a full.
 */

const DAY_MS = 86_400_000;

/**
 * The base of a differential run of `task`: its newest successful full that has a manifest and
 * is newer than `diffFullIntervalDays`, with at least one copy that is whole on its storage
 * (present, of the recorded size, not marked corrupt). Otherwise the run is a full: `reason` says why.
 */
export async function chooseBase(
  em: EntityManager,
  opener: StorageTargetOpener,
  task: Pick<BackupTask, 'id' | 'diffFullIntervalDays'>,
  now: Date,
): Promise<{ base: BackupRecord } | { reason: string }> {
  const [newest] = await em.find(
    BackupRecordEntity,
    { taskId: task.id, status: { $in: ['success', 'partial'] }, backupKind: 'full', deleteRequestedAt: null },
    { orderBy: { id: 'desc' }, limit: 1 },
  );
  if (!newest) return { reason: 'the task has no full backup yet' };
  if (newest.status !== 'success') return { reason: `the newest full (record ${newest.id}) is not complete` };
  if (!newest.hasManifest) return { reason: `the newest full (record ${newest.id}) has no file list` };
  const since = new Date(now.getTime() - task.diffFullIntervalDays * DAY_MS);
  if ((newest.startedAt ?? newest.queuedAt) < since)
    return { reason: `the newest full (record ${newest.id}) is older than ${task.diffFullIntervalDays} day(s)` };
  const problem = await unreadable(em, opener, newest);
  return problem
    ? { reason: `the copies of the newest full (record ${newest.id}) are unusable: ${problem}` }
    : { base: newest };
}

/** Why no copy of `record` can be read back (undefined when one is whole on its storage). */
async function unreadable(
  em: EntityManager,
  opener: StorageTargetOpener,
  record: BackupRecord,
): Promise<string | undefined> {
  const copies = await em.find(BackupRecordCopyEntity, { recordId: record.id, status: 'success' });
  const reasons: string[] = [];
  for (const copy of copies) {
    if (copy.corruptAt) {
      reasons.push(`${copy.storageTargetName}: marked corrupt`);
      continue;
    }
    const target = await em.findOne(StorageTargetEntity, { id: copy.storageTargetId }, { populate: ['secrets'] });
    if (!target?.enabled) {
      reasons.push(`${copy.storageTargetName}: the target is gone or disabled`);
      continue;
    }
    try {
      const instance = await opener.open(target);
      try {
        const info = await instance.stat(copy.storagePath);
        if (info && info.size === record.fileSize) return undefined;
        reasons.push(
          `${copy.storageTargetName}: ${info ? `${info.size} bytes stored, ${record.fileSize} recorded` : 'missing'}`,
        );
      } finally {
        await instance.close?.();
      }
    } catch (err) {
      reasons.push(`${copy.storageTargetName}: ${errorText(err)}`);
    }
  }
  return reasons.length > 0 ? reasons.join('; ') : 'no copy was stored';
}

const CARRY_BATCH = 400;

/**
 * Takes over manifest rows from the base for the files a differential did not archive: each
 * row of the base at `from`, stored for this record at `path` (a renamed folder moves them). One
 * statement per 400 files, run by the database (SQLite and PostgreSQL both take a CTE with
 * column names). Resolves with how many rows the base held.
 */
export async function carryManifestRows(
  orm: MikroORM,
  recordId: number,
  baseRecordId: number,
  entries: CarriedEntry[],
): Promise<number> {
  const sql = new AggregateSql(orm.em.fork());
  let carried = 0;
  for (let i = 0; i < entries.length; i += CARRY_BATCH) {
    const batch = entries.slice(i, i + CARRY_BATCH);
    const values = batch.map(() => '(?, ?)').join(', ');
    carried += await sql.run(
      `with carried (new_path, old_path) as (values ${values}) ` +
        'insert into backup_record_entries (record_id, path, size, mtime, mode, entry_type) ' +
        'select ?, c.new_path, e.size, e.mtime, e.mode, e.entry_type from carried c ' +
        'join backup_record_entries e on e.record_id = ? and e.path = c.old_path',
      [...batch.flatMap((e) => [e.path, e.from]), recordId, baseRecordId],
    );
  }
  return carried;
}

/** Records that need `recordId` to be restored: its differentials that hold or may yet hold an artifact, not being deleted. */
export async function dependentsOf(em: EntityManager, recordId: number): Promise<BackupRecord[]> {
  return em.find(
    BackupRecordEntity,
    { baseRecordId: recordId, deleteRequestedAt: null, status: { $nin: ['failed', 'cancelled'] } },
    { orderBy: { id: 'asc' } },
  );
}
