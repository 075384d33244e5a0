import type { RestoreRecord, VerifyRecord, ReplicationRecord } from '../../db/entities/recovery-records.ts';
import type { RecordLogHub } from '../../backup/record-log.ts';
import { reportedStatus } from '../backup-records/reported-status.ts';

function common(r: RestoreRecord | VerifyRecord | ReplicationRecord) {
  return {
    id: r.id,
    backupRecordId: r.backupRecordId,
    taskId: r.taskId,
    taskName: r.taskName,
    status: reportedStatus(r.status),
    state: r.status,
    errorMessage: r.errorMessage,
    triggeredBy: r.triggeredBy,
    durationSeconds: Math.round(r.durationMs / 100) / 10,
    queuedAt: r.queuedAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    completedAt: r.completedAt?.toISOString() ?? null,
  };
}

export function restoreView(r: RestoreRecord) {
  return {
    ...common(r),
    type: r.type,
    nodeId: r.nodeId,
    targetPath: r.targetPath,
    targetDatabase: r.targetDatabase,
    // One stored list: archive paths for file restores, the chosen databases for database restores.
    selectedPaths: r.type === 'file' ? (JSON.parse(r.selectedPaths) as string[]) : [],
    databases: r.type === 'file' ? [] : (JSON.parse(r.selectedPaths) as string[]),
    sourceTargetId: r.sourceTargetId,
    sourceTargetName: r.sourceTargetName,
    bytes: r.bytes,
    entries: r.entries,
  };
}

export function verifyView(r: VerifyRecord) {
  return {
    ...common(r),
    type: r.type,
    nodeId: r.nodeId,
    mode: r.mode,
    summary: r.summary,
    restoreSeconds: r.restoreMs == null ? null : Math.round(r.restoreMs / 100) / 10,
    sourceTargetId: r.sourceTargetId,
    sourceTargetName: r.sourceTargetName,
  };
}

export function replicationView(r: ReplicationRecord) {
  return {
    ...common(r),
    sourceTargetId: r.sourceTargetId,
    sourceTargetName: r.sourceTargetName,
    destTargetId: r.destTargetId,
    destTargetName: r.destTargetName,
    storagePath: r.storagePath,
    fileSize: r.fileSize,
    checksum: r.checksum,
  };
}

/** A record's log for its detail: the text and `logEvents`, one object per line. */
export async function logOf(hub: RecordLogHub, r: RestoreRecord | VerifyRecord) {
  return { logContent: await hub.content(r.id), logEvents: await hub.stored(r.id, 0, reportedStatus(r.status)) };
}
