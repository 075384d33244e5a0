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
  /** The forced-full interval of a differential mode: kept, no effect (full backups only). */
  diffFullIntervalDays: number;
  verifyEnabled: boolean;
  verifyCronExpr: string;
  verifyMode: string;
  maintenanceWindows: string;
  dependsOnTaskIds: number[];
  replicationTargetIds: number[];
}
