import type { EntityManager } from '@mikro-orm/core';
import { ARTIFACT_STATUSES, type BackupRecord, type RecordStatus } from '../db/entities/backup-record.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import type { Alerts } from '../notifications/alerts.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import type { RecordLogHub } from './record-log.ts';
import { backupAlert } from './backup-alert.ts';

export interface OutcomeDeps {
  recordLogs: RecordLogHub;
  backupMetrics: BackupMetrics;
  events: EventBus;
  alerts: Alerts;
}

/**
 * The end of every backup, wherever it ran (master or agent): the terminal status and times are
 * stored, the log gets its last line and closes, metrics count it and the event goes out. One
 * function so an agent's run is reported exactly like the master's. The notice goes into the
 * notification outbox in the same flush as the outcome: both are stored, or neither.
 */
export async function settleBackup(
  deps: OutcomeDeps,
  em: EntityManager,
  record: BackupRecord,
  task: BackupTask | null | undefined,
  status: RecordStatus,
): Promise<void> {
  const completed = new Date();
  const started = record.startedAt ?? completed;
  record.status = status;
  record.completedAt = completed;
  record.durationMs = completed.getTime() - started.getTime();
  if (task) task.lastStatus = status;
  const alert = await backupAlert(em, record, task);
  const staged = alert ? deps.alerts.stage(em, alert, completed) : undefined;
  await em.flush();
  if (staged) deps.alerts.commit(staged, { publish: false });
  const { recordLogs, backupMetrics } = deps;
  await recordLogs.line(
    record.id,
    status === 'success' ? 'info' : status === 'partial' ? 'warn' : 'error',
    `backup ${status} in ${(record.durationMs / 1000).toFixed(1)} s`,
  );
  recordLogs.setStatus(record.id, status);
  await recordLogs.close(record.id, status);
  backupMetrics.runs.inc({ type: record.type, status, trigger: record.trigger });
  backupMetrics.duration.observe({ type: record.type, status }, record.durationMs / 1000);
  if (ARTIFACT_STATUSES.includes(status)) {
    backupMetrics.bytes.inc({ type: record.type }, record.fileSize);
    backupMetrics.bytesRead.inc({ type: record.type, kind: record.backupKind }, record.rawSize);
    backupMetrics.bytesAdded.inc({ type: record.type, kind: record.backupKind }, record.fileSize);
  }
  publishOutcome(deps.events, record);
}

/** Every run's result on the bus (dashboards refresh on it), whether or not it is news for channels. */
function publishOutcome(events: EventBus, record: BackupRecord): void {
  const type =
    record.status === 'success'
      ? 'backup_success'
      : record.status === 'partial'
        ? 'backup_partial'
        : record.status === 'cancelled'
          ? 'backup_cancelled'
          : 'backup_failed';
  events.publish({
    type,
    title: `Backup ${record.status}: ${record.taskName}`,
    body: record.status === 'success' ? `Stored ${record.fileName}.` : record.errorMessage,
    fields: {
      recordId: record.id,
      taskId: record.taskId,
      taskName: record.taskName,
      status: record.status,
      fileSize: record.fileSize,
      durationSeconds: Math.round(record.durationMs / 1000),
      nodeId: record.nodeId,
    },
  });
}
