import type { BackupMode } from '../../db/entities/backup-task.ts';
import type { SourceSpec } from '../../engine/index.ts';

/** A task's full, normalised state: built from the stored row and the input, then validated; its source is what a run reads. */
export interface Draft extends SourceSpec {
  name: string;
  enabled: boolean;
  cronExpr: string;
  storageTargetIds: number[];
  nodeId: number;
  nodeLabel: string;
  tags: string[];
  retentionDays: number;
  maxBackups: number;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  keepYearly: number;
  compression: string;
  encrypt: boolean;
  slaHoursRpo: number;
  rtoMinutes: number;
  timeoutMinutes: number;
  alertOnConsecutiveFails: number;
  /** `full` or `differential`; database tasks are always `full` (BackupX forces them too). */
  backupMode: BackupMode;
  /** A differential's base full is at most this many days old. */
  diffFullIntervalDays: number;
  verifyEnabled: boolean;
  verifyCronExpr: string;
  verifyMode: string;
  maintenanceWindows: string;
  dependsOnTaskIds: number[];
  replicationTargetIds: number[];
}
