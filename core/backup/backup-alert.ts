import type { EntityManager } from '@mikro-orm/core';
import { BackupRecordEntity, type BackupRecord } from '../db/entities/backup-record.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import type { Alert } from '../notifications/alert.ts';

/** Outcomes that count in a failure streak: a cancelled run neither breaks nor extends one. */
const COUNTED = ['success', 'partial', 'failed'] as const;

/**
 * The alert for a finished backup, or none. `alertOnConsecutiveFails` (N, default 1) holds back a
 * failure until the last N counted runs all failed; the first success or partial run after such
 * a streak is `backup_recovered`, so whoever heard of the failure hears it is over. Call before
 * the record's outcome is flushed (it reads the runs before this one).
 */
export async function backupAlert(
  em: EntityManager,
  record: BackupRecord,
  task: BackupTask | null | undefined,
): Promise<Alert | undefined> {
  const threshold = Math.max(1, task?.alertOnConsecutiveFails ?? 1);
  const earlier = await em.find(
    BackupRecordEntity,
    { taskId: record.taskId, id: { $lt: record.id }, status: { $in: [...COUNTED] } },
    { orderBy: { id: 'desc' }, limit: threshold, fields: ['id', 'status'] },
  );
  const streakBefore = earlier.findIndex((r) => r.status !== 'failed');
  const failedBefore = streakBefore === -1 ? earlier.length : streakBefore;
  const base = {
    subject: `task:${record.taskId}`,
    linkPath: `/api/backup/records/${record.id}`,
    fields: {
      recordId: record.id,
      taskId: record.taskId,
      taskName: record.taskName,
      status: record.status,
      fileName: record.fileName,
      fileSize: record.fileSize,
      durationSeconds: Math.round(record.durationMs / 1000),
      error: record.errorMessage,
      nodeId: record.nodeId,
      trigger: record.trigger,
    },
  };
  switch (record.status) {
    case 'failed': {
      const streak = failedBefore + 1;
      if (streak < threshold) return undefined;
      return {
        ...base,
        type: 'backup_failed',
        title: `Backup failed: ${record.taskName}`,
        body: record.errorMessage || 'The backup failed.',
        fields: { ...base.fields, consecutiveFailures: streak },
      };
    }
    case 'success':
    case 'partial': {
      if (failedBefore >= threshold) {
        return {
          ...base,
          type: 'backup_recovered',
          title: `Backup recovered: ${record.taskName}`,
          body:
            `The backup ${record.status === 'success' ? 'succeeded' : 'stored a partial result'}` +
            ` after ${failedBefore} failed run(s). Stored ${record.fileName}.`,
          fields: { ...base.fields, previousFailures: failedBefore },
        };
      }
      if (record.status === 'partial')
        return {
          ...base,
          type: 'backup_partial',
          title: `Backup partial: ${record.taskName}`,
          body: record.errorMessage || `Stored ${record.fileName} on some of its targets only.`,
        };
      return {
        ...base,
        type: 'backup_success',
        title: `Backup succeeded: ${record.taskName}`,
        body: `Stored ${record.fileName}.`,
      };
    }
    case 'cancelled':
      return {
        ...base,
        type: 'backup_cancelled',
        title: `Backup cancelled: ${record.taskName}`,
        body: record.errorMessage || 'The backup was cancelled.',
      };
    default:
      return undefined;
  }
}
