import type { RestoreRecord, VerifyRecord, ReplicationRecord } from '../db/entities/recovery-records.ts';
import type { Alert } from '../notifications/alert.ts';

/** `restore_success` / `restore_failed` / `restore_cancelled`, for restores on the master and on agents alike. */
export function restoreAlert(record: RestoreRecord): Alert {
  const ok = record.status === 'success';
  return {
    type: ok ? 'restore_success' : record.status === 'cancelled' ? 'restore_cancelled' : 'restore_failed',
    subject: `task:${record.taskId}`,
    linkPath: `/api/restore/records/${record.id}`,
    title: `Restore ${ok ? 'succeeded' : record.status}: ${record.taskName}`,
    body: ok
      ? `Record ${record.backupRecordId} restored${record.nodeId ? ` on node ${record.nodeId}` : ''}.`
      : record.errorMessage,
    fields: {
      restoreId: record.id,
      backupRecordId: record.backupRecordId,
      taskId: record.taskId,
      taskName: record.taskName,
      status: record.status,
      error: record.errorMessage,
      nodeId: record.nodeId,
    },
  };
}

/**
 * `verify_success`, `verify_failed` or `verify_cancelled`. A partial verification (a corrupt
 * copy, another copy verified) is `verify_failed` with status `partial`: a damaged copy is news.
 */
export function verifyAlert(record: VerifyRecord): Alert {
  const ok = record.status === 'success';
  const type = ok ? 'verify_success' : record.status === 'cancelled' ? 'verify_cancelled' : 'verify_failed';
  return {
    type,
    severity: record.status === 'partial' ? 'warning' : undefined,
    subject: `task:${record.taskId}`,
    linkPath: `/api/verify/records/${record.id}`,
    title: `Verification ${ok ? 'passed' : record.status === 'partial' ? 'found a corrupt copy' : record.status}: ${record.taskName}`,
    body: ok ? record.summary : record.errorMessage,
    fields: {
      verifyId: record.id,
      backupRecordId: record.backupRecordId,
      taskId: record.taskId,
      taskName: record.taskName,
      mode: record.mode,
      status: record.status,
      error: record.errorMessage,
      restoreSeconds:
        record.restoreMs === null || record.restoreMs === undefined ? null : Math.round(record.restoreMs / 1000),
    },
  };
}

/**
 * `rto_exceeded` when a deep verification measured a restore slower than the task's objective
 * (`rtoMinutes` > 0): "recoverable within N minutes" was just shown not to hold.
 */
export function rtoAlert(record: VerifyRecord, rtoMinutes: number): Alert | undefined {
  if (rtoMinutes <= 0 || record.mode !== 'deep' || record.restoreMs === null || record.restoreMs === undefined)
    return undefined;
  if (record.status !== 'success' && record.status !== 'partial') return undefined;
  const measuredMinutes = record.restoreMs / 60_000;
  if (measuredMinutes <= rtoMinutes) return undefined;
  return {
    type: 'rto_exceeded',
    subject: `task:${record.taskId}`,
    linkPath: `/api/verify/records/${record.id}`,
    title: `Recovery time objective exceeded: ${record.taskName}`,
    body: `A deep verification restored the backup in ${measuredMinutes.toFixed(1)} minutes; the objective is ${rtoMinutes} minutes.`,
    fields: {
      taskId: record.taskId,
      taskName: record.taskName,
      verifyId: record.id,
      backupRecordId: record.backupRecordId,
      rtoMinutes,
      measuredMinutes: Math.round(measuredMinutes * 10) / 10,
    },
  };
}

/** `replication_failed` (a replication that succeeded is not news). */
export function replicationAlert(record: ReplicationRecord): Alert | undefined {
  if (record.status === 'success') return undefined;
  return {
    type: 'replication_failed',
    subject: `task:${record.taskId}`,
    linkPath: `/api/replication/records/${record.id}`,
    title: `Replication failed: ${record.taskName}`,
    body: record.errorMessage,
    fields: {
      replicationId: record.id,
      backupRecordId: record.backupRecordId,
      taskId: record.taskId,
      taskName: record.taskName,
      sourceTargetId: record.sourceTargetId,
      destTargetId: record.destTargetId,
      destTargetName: record.destTargetName,
      status: record.status,
      error: record.errorMessage,
    },
  };
}
