import type { BackupRecord, BackupRecordCopy } from '../../db/entities/backup-record.ts';
import { reportedStatus } from './reported-status.ts';
import type { ProgressInfo } from '../../backup/record-log.ts';

/** The fields of a record and of its copies a summary shows (entities, or rows read for a list). */
export type RecordRow = Pick<
  BackupRecord,
  | 'id'
  | 'taskId'
  | 'taskName'
  | 'type'
  | 'nodeId'
  | 'status'
  | 'trigger'
  | 'triggeredBy'
  | 'fileName'
  | 'fileSize'
  | 'rawSize'
  | 'checksum'
  | 'storagePath'
  | 'compression'
  | 'encrypted'
  | 'hasManifest'
  | 'errorMessage'
  | 'errorCode'
  | 'locked'
  | 'deleteRequestedAt'
  | 'queuedAt'
  | 'startedAt'
  | 'completedAt'
  | 'durationMs'
  | 'backupKind'
  | 'baseRecordId'
>;
export type CopyRow = Pick<
  BackupRecordCopy,
  'storageTargetId' | 'storageTargetName' | 'status' | 'corruptAt' | 'transferMode'
>;

/** The primary copy: the first target that holds an intact artifact, else the first that holds one, else the first target. */
function primary(copies: CopyRow[]): CopyRow | undefined {
  return (
    copies.find((c) => c.status === 'success' && !c.corruptAt) ??
    copies.find((c) => c.status === 'success') ??
    copies[0]
  );
}

/** `progress`: the last progress frame of a running record that reached this master (null otherwise). */
export function recordSummary(r: RecordRow, copies: CopyRow[], progress?: ProgressInfo) {
  const p = primary(copies);
  return {
    id: r.id,
    taskId: r.taskId,
    taskName: r.taskName,
    type: r.type,
    storageTargetId: p?.storageTargetId ?? 0,
    storageTargetName: p?.storageTargetName ?? '',
    nodeId: r.nodeId,
    status: reportedStatus(r.status),
    state: r.status,
    trigger: r.trigger,
    triggeredBy: r.triggeredBy,
    fileName: r.fileName,
    fileSize: r.fileSize,
    rawSize: r.rawSize,
    checksum: r.checksum,
    storagePath: r.storagePath,
    storageTransferMode: p?.transferMode ?? 'direct',
    compression: r.compression,
    encrypted: r.encrypted,
    durationSeconds: Math.round(r.durationMs / 100) / 10,
    errorMessage: r.errorMessage,
    errorCode: r.errorCode || null,
    queuedAt: r.queuedAt.toISOString(),
    startedAt: r.startedAt?.toISOString() ?? null,
    completedAt: r.completedAt?.toISOString() ?? null,
    locked: r.locked,
    deletePending: r.deleteRequestedAt != null,
    backupKind: r.backupKind,
    baseRecordId: r.baseRecordId,
    hasContents: r.hasManifest,
    progress: r.status === 'running' && progress ? { ...progress } : null,
  };
}

export function copyResult(c: BackupRecordCopy) {
  return {
    storageTargetId: c.storageTargetId,
    storageTargetName: c.storageTargetName,
    // A stored copy a read found corrupt shows as such; its object is still there (and deleted with the record).
    status: c.status === 'success' && c.corruptAt ? 'corrupt' : c.status,
    corruptAt: c.corruptAt?.toISOString() ?? null,
    storagePath: c.storagePath,
    fileSize: c.fileSize,
    transferMode: c.transferMode,
    attempts: c.attempts,
    error: c.error,
    errorCode: c.errorCode || null,
    snapshotId: c.snapshotId || null,
  };
}
