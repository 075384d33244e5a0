import type { EntityManager } from '@mikro-orm/core';
import { BackupTaskEntity, type BackupTask } from '../../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { NodeEntity } from '../../db/entities/node.ts';
import { AppError } from '../../http/app-error.ts';
import { type ProviderRegistry, driverFor } from '../../engine/index.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import type { BackupTaskService } from '../backup-tasks/backup-task-service.ts';
import type { TaskInput } from '../backup-tasks/backup-task-schemas.ts';
import type { ImportReport, ImportResult, ImportedTask } from './task-transfer-schemas.ts';

/** The reference's own node on its master ("本机" = this machine): tasks on it run on our master. */
export const REFERENCE_LOCAL_NODE = '本机 (Local)';

export interface ImportDeps {
  em: EntityManager;
  backupTasks: BackupTaskService;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
}

export interface ImportHooks {
  /** After each task is created (schedule it, audit it). */
  created(task: BackupTask): Promise<void>;
  /** After a created task got its dependencies. */
  linked(task: BackupTask): Promise<void>;
}

type Failure = { code: string; error: string };
type References = { storageTargetIds: number[]; replicationTargetIds: number[]; nodeId: number };

/** An AppError as one line: its message and each failing field. */
function describe(err: AppError): string {
  const details = Array.isArray(err.details) ? (err.details as { path?: string; message?: string }[]) : [];
  return details.length === 0
    ? err.message
    : `${err.message} ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
}

const notFound = (error: string): Failure => ({ code: 'BACKUP_TASK_IMPORT_REFERENCE_NOT_FOUND', error });

/**
 * The task input for one entry. A v1 file leaves zero values out (the reference writes it with
 * Go's `omitempty`), so an absent `encrypt` is false and an absent `retentionDays` is 0 (no age
 * limit), as the reference itself reads them back. Where the reference's zero means "the
 * default" (compression, verifyMode, maxBackups, alertOnConsecutiveFails), and for fields v1
 * does not carry (GFS keeps, rtoMinutes, timeoutMinutes, diffFullIntervalDays), Backplane's defaults apply.
 */
export function toTaskInput(e: ImportedTask, refs: References): TaskInput {
  const input: TaskInput = {
    name: e.name,
    type: e.type,
    ...refs,
    encrypt: e.encrypt ?? false,
    retentionDays: e.retentionDays ?? 0,
  };
  const sourcePaths = e.sourcePaths?.length ? e.sourcePaths : e.sourcePath ? [e.sourcePath] : undefined;
  if (sourcePaths) input.sourcePaths = sourcePaths;
  if (e.compression?.trim()) input.compression = e.compression;
  if (e.verifyMode?.trim()) input.verifyMode = e.verifyMode;
  if (e.tags != null) input.tags = e.tags;
  if (e.excludePatterns != null) input.excludePatterns = e.excludePatterns;
  for (const key of [
    'cronExpr',
    'dbHost',
    'dbUser',
    'dbName',
    'dbPath',
    'verifyCronExpr',
    'maintenanceWindows',
    'nodeLabel',
    'nodePoolTag',
    'backupMode',
  ] as const) {
    const value = e[key];
    if (value != null) input[key] = value;
  }
  for (const key of ['enabled', 'verifyEnabled'] as const) {
    const value = e[key];
    if (value != null) input[key] = value;
  }
  for (const key of [
    'dbPort',
    'maxBackups',
    'keepDaily',
    'keepWeekly',
    'keepMonthly',
    'keepYearly',
    'slaHoursRpo',
    'rtoMinutes',
    'timeoutMinutes',
    'alertOnConsecutiveFails',
    'diffFullIntervalDays',
  ] as const) {
    const value = e[key];
    if (value != null) input[key] = value;
  }
  // Refused by the task input when it has any key (reference-options.ts).
  if (e.extraConfig != null) input.extraConfig = e.extraConfig;
  return input;
}

/**
 * Creates the tasks of a v1 file, one at a time and best effort: a task whose name exists is
 * skipped (never overwritten), one that fails leaves the others alone. Storage and replication
 * targets and the node are resolved by name first (an unknown name fails that task);
 * dependencies are linked by name in a second pass, once every task of the file exists.
 */
export async function importTasks(
  deps: ImportDeps,
  entries: ImportedTask[],
  hooks: ImportHooks,
): Promise<ImportReport> {
  const { em, backupTasks } = deps;
  const targetIds = new Map(
    (await em.find(StorageTargetEntity, {}, { fields: ['id', 'name'] })).map((t) => [t.name, t.id]),
  );
  const nodeIds = new Map((await em.find(NodeEntity, {}, { fields: ['id', 'name'] })).map((n) => [n.name, n.id]));
  const taskIds = new Map((await em.find(BackupTaskEntity, {}, { fields: ['id', 'name'] })).map((t) => [t.name, t.id]));

  const results: ImportResult[] = [];
  const created: { result: ImportResult; dependsOn: string[] }[] = [];
  for (const entry of entries) {
    const name = entry.name.trim();
    const existing = taskIds.get(name);
    if (existing !== undefined) {
      results.push({
        name,
        taskId: existing,
        success: true,
        skipped: true,
        warnings: ['A task with this name already exists; it was left unchanged.'],
      });
      continue;
    }
    const resolved = resolveReferences(entry, targetIds, nodeIds);
    if ('error' in resolved) {
      results.push({ name, success: false, error: resolved.error, skipped: false, code: resolved.code, warnings: [] });
      continue;
    }
    let task: BackupTask;
    try {
      task = await backupTasks.create(toTaskInput(entry, resolved));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      results.push({ name, success: false, error: describe(err), skipped: false, code: err.code, warnings: [] });
      continue;
    }
    taskIds.set(task.name, task.id);
    await hooks.created(task);
    const result: ImportResult = {
      name: task.name,
      taskId: task.id,
      success: true,
      skipped: false,
      warnings: warningsFor(deps, task),
    };
    results.push(result);
    created.push({ result, dependsOn: (entry.dependsOnTaskNames ?? []).map((n) => n.trim()) });
  }

  for (const { result, dependsOn } of created) {
    if (dependsOn.length === 0) continue;
    const ids: number[] = [];
    for (const depName of dependsOn) {
      const id = taskIds.get(depName);
      if (depName === result.name)
        result.warnings.push('The task named itself as a dependency; that dependency was dropped.');
      else if (id === undefined)
        result.warnings.push(`Dependency "${depName}" does not exist here; it was not linked.`);
      else ids.push(id);
    }
    if (ids.length === 0) continue;
    try {
      await hooks.linked(await backupTasks.update(result.taskId!, { dependsOnTaskIds: ids }));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      result.warnings.push(`The task was created but its dependencies were not linked: ${describe(err)}`);
    }
  }

  // `error` is each entry's note (a console shows it): a task that exists says what is left to do there.
  for (const r of results) if (r.error === undefined && r.warnings.length > 0) r.error = r.warnings.join(' ');
  return results;
}

function resolveReferences(
  entry: ImportedTask,
  targetIds: Map<string, number>,
  nodeIds: Map<string, number>,
): References | Failure {
  const names = (entry.storageTargetNames ?? []).map((n) => n.trim());
  if (names.length === 0)
    return { code: 'BACKUP_TASK_INVALID', error: 'storageTargetNames: at least one storage target is required.' };
  const replicas = (entry.replicationTargetNames ?? []).map((n) => n.trim());
  const unknown = [...new Set([...names, ...replicas].filter((n) => !targetIds.has(n)))];
  if (unknown.length > 0) {
    const many = unknown.length > 1;
    return notFound(
      `Storage target${many ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')} do${many ? '' : 'es'} not exist on this server;` +
        ` create ${many ? 'them' : 'it'} under the same name first.`,
    );
  }
  const nodeName = (entry.nodeName ?? '').trim();
  let nodeId: number | undefined;
  if (nodeName === '' || nodeName === REFERENCE_LOCAL_NODE) nodeId = 0;
  else nodeId = nodeIds.get(nodeName) ?? (nodeName === 'master' ? 0 : undefined);
  if (nodeId === undefined)
    return notFound(
      `Node "${nodeName}" does not exist on this server; register it under the same name first, or clear nodeName to run the task on the master.`,
    );
  return {
    storageTargetIds: names.map((n) => targetIds.get(n)!),
    replicationTargetIds: replicas.map((n) => targetIds.get(n)!),
    nodeId,
  };
}

function warningsFor(deps: ImportDeps, task: BackupTask): string[] {
  if (!driverFor(deps.databaseDrivers.list(), task.type)?.secretFields.includes('password')) return [];
  return [
    'Exports carry no database password: set dbPassword on this task before it runs, unless the server needs none (trust or peer authentication, .pgpass).',
  ];
}
