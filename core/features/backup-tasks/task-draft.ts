/** A task's full, normalised state: built from the stored row and the input, then validated. */
export interface Draft {
  name: string;
  type: string;
  enabled: boolean;
  cronExpr: string;
  sourcePaths: string[];
  excludePatterns: string[];
  dbHost: string;
  dbPort: number;
  dbUser: string;
  dbName: string;
  dbPath: string;
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
  verifyEnabled: boolean;
  verifyCronExpr: string;
  verifyMode: string;
  maintenanceWindows: string;
  dependsOnTaskIds: number[];
  replicationTargetIds: number[];
}
