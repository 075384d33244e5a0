import type { EntityManager } from '@mikro-orm/core';
import { BackupTaskEntity, type BackupTask } from '../../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { AppError } from '../../http/app-error.ts';
import type { BackupTaskService } from '../backup-tasks/backup-task-service.ts';
import { jsonList } from '../backup-tasks/backup-task-view.ts';
import { EXPORT_VERSION, type ExportedTask, type TaskExportFile } from './task-transfer-schemas.ts';

export const EXPORT_NOTICE =
  'Task definitions only. Database passwords and storage credentials are not included: ' +
  "set each database task's password after import. Storage targets, nodes and dependencies are referenced by name; " +
  'create the storage targets and nodes under the same names before importing. An empty nodeName means the master.';

/** `backplane-tasks-YYYYMMDD-HHMMSS.json`, in UTC. */
export function taskExportFileName(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `backplane-tasks-${stamp}.json`;
}

/** The `ids` query (already shaped by its schema pattern) as distinct ids, in the order given. */
export function parseExportIds(ids: string): number[] {
  return [...new Set(ids.split(',').map((s) => Number(s.trim())))];
}

/**
 * Every task (or the selected ones, by name) as a v1 file. Selected ids that do not exist are
 * a 404 rather than a silently shorter file. A dependency outside the selection is still
 * written by name: the import resolves it against the tasks already on the other side.
 */
export async function buildTaskExport(
  { em, backupTasks }: { em: EntityManager; backupTasks: BackupTaskService },
  ids: number[] | undefined,
  now: Date,
): Promise<TaskExportFile> {
  const tasks = await em.find(BackupTaskEntity, ids === undefined ? {} : { id: { $in: ids } }, {
    orderBy: { name: 'asc' },
  });
  if (ids !== undefined) {
    const found = new Set(tasks.map((t) => t.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0)
      throw new AppError('BACKUP_TASK_NOT_FOUND', { message: `Backup task not found: ${missing.join(', ')}.` });
  }
  const depIds = [...new Set(tasks.flatMap((t) => jsonList<number>(t.dependsOnTaskIds)))];
  const depNames = new Map(
    (depIds.length ? await em.find(BackupTaskEntity, { id: { $in: depIds } }, { fields: ['id', 'name'] }) : []).map(
      (t) => [t.id, t.name],
    ),
  );
  const replicaIds = [...new Set(tasks.flatMap((t) => jsonList<number>(t.replicationTargetIds)))];
  const replicaNames = new Map(
    (replicaIds.length
      ? await em.find(StorageTargetEntity, { id: { $in: replicaIds } }, { fields: ['id', 'name'] })
      : []
    ).map((t) => [t.id, t.name]),
  );
  const summaries = await backupTasks.summaries(tasks);
  const exported = tasks.map((task, i) => toExported(task, summaries[i]!, depNames, replicaNames));
  return {
    version: EXPORT_VERSION,
    exportedAt: now.toISOString(),
    taskCount: exported.length,
    notice: EXPORT_NOTICE,
    tasks: exported,
  };
}

function toExported(
  t: BackupTask,
  summary: { storageTargetNames: string[]; nodeName: string },
  depNames: Map<number, string>,
  replicaNames: Map<number, string>,
): ExportedTask {
  const sourcePaths = jsonList<string>(t.sourcePaths);
  const names = (ids: number[], lookup: Map<number, string>) =>
    ids.map((id) => lookup.get(id)).filter((n): n is string => n !== undefined);
  return {
    name: t.name,
    type: t.type,
    enabled: t.enabled,
    cronExpr: t.cronExpr,
    sourcePath: sourcePaths[0] ?? '',
    sourcePaths,
    excludePatterns: jsonList<string>(t.excludePatterns),
    dbHost: t.dbHost,
    dbPort: t.dbPort,
    dbUser: t.dbUser,
    dbName: t.dbName,
    dbPath: t.dbPath,
    storageTargetNames: summary.storageTargetNames,
    replicationTargetNames: names(jsonList<number>(t.replicationTargetIds), replicaNames),
    // The reference writes no name for its master either; 'master' is only our display label.
    nodeName: t.nodeId === 0 ? '' : summary.nodeName,
    nodeLabel: t.nodeLabel,
    dependsOnTaskNames: names(jsonList<number>(t.dependsOnTaskIds), depNames),
    tags: t.tags,
    compression: t.compression,
    encrypt: t.encrypt,
    retentionDays: t.retentionDays,
    maxBackups: t.maxBackups,
    keepDaily: t.keepDaily,
    keepWeekly: t.keepWeekly,
    keepMonthly: t.keepMonthly,
    keepYearly: t.keepYearly,
    verifyEnabled: t.verifyEnabled,
    verifyCronExpr: t.verifyCronExpr,
    verifyMode: t.verifyMode,
    slaHoursRpo: t.slaHoursRpo,
    rtoMinutes: t.rtoMinutes,
    timeoutMinutes: t.timeoutMinutes,
    alertOnConsecutiveFails: t.alertOnConsecutiveFails,
    backupMode: t.backupMode,
    diffFullIntervalDays: t.diffFullIntervalDays,
    maintenanceWindows: t.maintenanceWindows,
  };
}
