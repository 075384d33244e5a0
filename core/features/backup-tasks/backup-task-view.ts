import type { BackupTask } from '../../db/entities/backup-task.ts';

export const PASSWORD_MASK = '********';

/** What a view needs besides the row: the task's targets in order and its node's name. */
export interface TaskRefs {
  targets: { id: number; name: string }[];
  nodeName: string;
}

export function jsonList<T>(text: string): T[] {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

export function toTaskSummary(t: BackupTask, refs: TaskRefs) {
  return {
    id: t.id,
    name: t.name,
    type: t.type,
    enabled: t.enabled,
    cronExpr: t.cronExpr,
    storageTargetId: refs.targets[0]?.id ?? 0,
    storageTargetName: refs.targets[0]?.name ?? '',
    storageTargetIds: refs.targets.map((x) => x.id),
    storageTargetNames: refs.targets.map((x) => x.name),
    nodeId: t.nodeId,
    nodeName: refs.nodeName,
    nodeLabel: t.nodeLabel,
    nodePoolTag: t.nodeLabel,
    tags: t.tags,
    retentionDays: t.retentionDays,
    maxBackups: t.maxBackups,
    keepDaily: t.keepDaily,
    keepWeekly: t.keepWeekly,
    keepMonthly: t.keepMonthly,
    keepYearly: t.keepYearly,
    compression: t.compression,
    encrypt: t.encrypt,
    slaHoursRpo: t.slaHoursRpo,
    rtoMinutes: t.rtoMinutes,
    timeoutMinutes: t.timeoutMinutes,
    alertOnConsecutiveFails: t.alertOnConsecutiveFails,
    verifyEnabled: t.verifyEnabled,
    verifyCronExpr: t.verifyCronExpr,
    verifyMode: t.verifyMode,
    maintenanceWindows: t.maintenanceWindows,
    dependsOnTaskIds: jsonList<number>(t.dependsOnTaskIds),
    replicationTargetIds: jsonList<number>(t.replicationTargetIds),
    backupMode: t.backupMode,
    diffFullIntervalDays: t.diffFullIntervalDays,
    lastRunAt: t.lastRunAt?.toISOString() ?? null,
    lastStatus: t.lastStatus,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

/** The detail: connection fields too, with the stored password masked (`hasPassword` from the sealed column). */
export function toTaskDetail(t: BackupTask, refs: TaskRefs, hasPassword: boolean) {
  const sourcePaths = jsonList<string>(t.sourcePaths);
  return {
    ...toTaskSummary(t, refs),
    sourcePath: sourcePaths[0] ?? '',
    sourcePaths,
    excludePatterns: jsonList<string>(t.excludePatterns),
    dbHost: t.dbHost,
    dbPort: t.dbPort,
    dbUser: t.dbUser,
    dbName: t.dbName,
    dbPath: t.dbPath,
    dbPassword: hasPassword ? PASSWORD_MASK : '',
    maskedFields: hasPassword ? ['dbPassword'] : [],
  };
}
