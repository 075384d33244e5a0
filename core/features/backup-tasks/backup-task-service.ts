import { BackupRecordEntity } from '../../db/entities/backup-record.ts';
import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { BackupTaskEntity, BackupTaskTargetEntity, type BackupTask } from '../../db/entities/backup-task.ts';
import { StorageTargetEntity } from '../../db/entities/storage-target.ts';
import { NodeEntity } from '../../db/entities/node.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { type ProviderRegistry, driverFor } from '../../engine/index.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import { AppError } from '../../http/app-error.ts';
import { DB_PASSWORD_AAD } from '../../backup/task-spec.ts';
import { PASSWORD_MASK, jsonList, toTaskDetail, toTaskSummary, type TaskRefs } from './backup-task-view.ts';
import type { TaskInput, TaskListQuery, TaskUpdate } from './backup-task-schemas.ts';
import type { Draft } from './task-draft.ts';
import { validateTask } from './task-validation.ts';
import { backupModeOf, poolLabel, refuseUnsupportedOptions, REFERENCE_TYPE_NAMES } from './reference-options.ts';
import { rowLimit } from '../../http/schemas.ts';

/** The default forced-full interval, also what `diffFullIntervalDays: 0` means. */
const DIFF_FULL_INTERVAL_DEFAULT = 7;

/** What a field absent from a new task's input becomes. */
export const TASK_DEFAULTS: Omit<Draft, 'name' | 'type'> = {
  enabled: true,
  cronExpr: '',
  sourcePaths: [],
  excludePatterns: [],
  dbHost: '',
  dbPort: 0,
  dbUser: '',
  dbName: '',
  dbPath: '',
  storageTargetIds: [],
  nodeId: 0,
  nodeLabel: '',
  tags: [],
  retentionDays: 30,
  maxBackups: 10,
  keepDaily: 0,
  keepWeekly: 0,
  keepMonthly: 0,
  keepYearly: 0,
  compression: 'zstd',
  encrypt: true,
  slaHoursRpo: 0,
  rtoMinutes: 0,
  timeoutMinutes: 0,
  alertOnConsecutiveFails: 1,
  backupMode: 'full',
  diffFullIntervalDays: DIFF_FULL_INTERVAL_DEFAULT,
  verifyEnabled: false,
  verifyCronExpr: '',
  verifyMode: 'quick',
  maintenanceWindows: '',
  dependsOnTaskIds: [],
  replicationTargetIds: [],
};

/** Tags from an array or a CSV string: split on commas, trimmed, empties and repeats dropped. */
export function normaliseTags(tags: string | string[]): string[] {
  const parts = (Array.isArray(tags) ? tags : [tags]).flatMap((t) => t.split(','));
  return [...new Set(parts.map((t) => t.trim()).filter((t) => t !== ''))];
}

const unique = <T>(list: T[]): T[] => [...new Set(list)];

export class BackupTaskService {
  readonly #em: EntityManager;
  readonly #box: SecretBox;
  readonly #drivers: ProviderRegistry<DatabaseDriverType>;

  constructor({
    em,
    secretBox,
    databaseDrivers,
  }: { em: EntityManager; secretBox: SecretBox; databaseDrivers: ProviderRegistry<DatabaseDriverType> }) {
    this.#em = em;
    this.#box = secretBox;
    this.#drivers = databaseDrivers;
  }

  /** `file`, or the canonical type of the database driver serving `type` (`pgsql` -> `postgresql`). */
  canonicalType(type: string): string | undefined {
    if (type === 'file') return 'file';
    return driverFor(this.#drivers.list(), type)?.type;
  }

  /**
   * The canonical type, or 400 BACKUP_TASK_TYPE_UNSUPPORTED naming it and the types this master
   * serves (`details.supportedTypes`): checked before anything else, so a client that picks a
   * type no plugin serves (MongoDB, SAP HANA) reads why in the message it shows.
   */
  supportedType(type: string): string {
    const canonical = this.canonicalType(type.trim());
    if (canonical) return canonical;
    const supportedTypes = ['file', ...this.#drivers.list().map((d) => d.type)];
    const name = REFERENCE_TYPE_NAMES[type.trim().toLowerCase()];
    throw new AppError('BACKUP_TASK_TYPE_UNSUPPORTED', {
      message: `Task type "${type}"${name ? ` (${name})` : ''} is not supported: no installed plugin serves it. Supported types: ${supportedTypes.join(', ')}.`,
      details: { type, supportedTypes },
    });
  }

  async list(query: TaskListQuery): Promise<[BackupTask[], number]> {
    const where: Record<string, unknown> = {};
    if (query.type !== undefined) where.type = this.canonicalType(query.type) ?? query.type;
    if (query.enabled !== undefined) where.enabled = query.enabled;
    const orderBy = { name: 'asc' } as const;
    if (query.tag === undefined) {
      return this.#em.findAndCount(BackupTaskEntity, where, {
        orderBy,
        limit: rowLimit(query.limit),
        offset: query.offset,
      });
    }
    // Tags are a short CSV per task; an exact match is done here rather than with LIKE patterns.
    const tag = query.tag.trim();
    const all = (await this.#em.find(BackupTaskEntity, where, { orderBy })).filter((t) =>
      normaliseTags(t.tags).includes(tag),
    );
    return [all.slice(query.offset, query.limit === undefined ? undefined : query.offset + query.limit), all.length];
  }

  async tags(): Promise<string[]> {
    const rows = await this.#em.find(BackupTaskEntity, {}, { fields: ['tags'] });
    return [...new Set(rows.flatMap((r) => normaliseTags(r.tags)))].sort((a, b) => a.localeCompare(b));
  }

  async get(id: number, em: EntityManager = this.#em): Promise<BackupTask> {
    const task = await em.findOne(BackupTaskEntity, { id }, { populate: ['dbPassword'] });
    if (!task) throw new AppError('BACKUP_TASK_NOT_FOUND');
    return task;
  }

  /** The decrypted database password of a task ('' when none): for the engine, never for responses. */
  password(task: BackupTask): string {
    return task.dbPassword ? this.#box.open(task.dbPassword, DB_PASSWORD_AAD) : '';
  }

  async create(input: TaskInput): Promise<BackupTask> {
    this.supportedType(input.type);
    refuseUnsupportedOptions(input);
    return this.#em.transactional(async (em) => {
      const draft = this.#merge({ ...TASK_DEFAULTS, name: input.name, type: input.type }, input);
      await this.#validate(em, draft, undefined);
      const task = em.create(BackupTaskEntity, {
        ...this.#columns(draft),
        lastStatus: 'idle',
        dbPassword: this.#sealNew(input.dbPassword) ?? '',
      });
      await this.#flushUnique(em);
      this.#link(em, task.id, draft.storageTargetIds);
      await em.flush();
      return task;
    });
  }

  async update(id: number, input: TaskUpdate): Promise<BackupTask> {
    if (input.type !== undefined) this.supportedType(input.type);
    refuseUnsupportedOptions(input);
    return this.#em.transactional(async (em) => {
      const task = await this.get(id, em);
      const targetIds = (await em.find(BackupTaskTargetEntity, { taskId: id }, { orderBy: { position: 'asc' } })).map(
        (l) => l.storageTargetId,
      );
      const draft = this.#merge(this.#draftOf(task, targetIds), input);
      await this.#validate(em, draft, id);
      em.assign(task, this.#columns(draft));
      const sealed = this.#sealNew(input.dbPassword);
      if (sealed !== undefined) task.dbPassword = sealed;
      if (draft.storageTargetIds.join(',') !== targetIds.join(',')) {
        await em.nativeDelete(BackupTaskTargetEntity, { taskId: id });
        this.#link(em, id, draft.storageTargetIds);
      }
      await this.#flushUnique(em);
      return task;
    });
  }

  /**
   * Deletes the task and its target links, and drops it from other tasks' dependencies. Its
   * records and their artifacts stay (a backup outlives the job that made it); refused while a
   * run is queued or running.
   */
  async delete(id: number): Promise<BackupTask> {
    return this.#em.transactional(async (em) => {
      const task = await this.get(id, em);
      if ((await em.count(BackupRecordEntity, { taskId: id, status: { $in: ['queued', 'running'] } })) > 0) {
        throw new AppError('BACKUP_TASK_ALREADY_RUNNING', {
          message: `Task "${task.name}" has a queued or running backup; delete it once the run ends.`,
        });
      }
      await em.nativeDelete(BackupTaskTargetEntity, { taskId: id });
      for (const other of await em.find(BackupTaskEntity, { id: { $ne: id } })) {
        const deps = jsonList<number>(other.dependsOnTaskIds);
        if (deps.includes(id)) other.dependsOnTaskIds = JSON.stringify(deps.filter((d) => d !== id));
      }
      em.remove(task);
      await em.flush();
      return task;
    });
  }

  /** Sets `enabled`, or flips it when `enabled` is undefined. */
  async toggle(id: number, enabled?: boolean): Promise<BackupTask> {
    const task = await this.get(id);
    task.enabled = enabled ?? !task.enabled;
    await this.#em.flush();
    return task;
  }

  async summaries(tasks: BackupTask[]) {
    const refs = await this.#refs(tasks);
    return tasks.map((t) => toTaskSummary(t, refs.get(t.id)!));
  }

  async detail(task: BackupTask) {
    const refs = await this.#refs([task]);
    return toTaskDetail(
      task,
      refs.get(task.id)!,
      task.dbPassword !== '' && task.dbPassword !== undefined && task.dbPassword !== null,
    );
  }

  async #refs(tasks: BackupTask[]): Promise<Map<number, TaskRefs>> {
    const ids = tasks.map((t) => t.id);
    const links = ids.length
      ? await this.#em.find(
          BackupTaskTargetEntity,
          { taskId: { $in: ids } },
          { orderBy: { taskId: 'asc', position: 'asc' } },
        )
      : [];
    const targetIds = unique(links.map((l) => l.storageTargetId));
    const targets = targetIds.length
      ? await this.#em.find(StorageTargetEntity, { id: { $in: targetIds } }, { fields: ['id', 'name'] })
      : [];
    const targetName = new Map(targets.map((t) => [t.id, t.name]));
    const nodeIds = unique(tasks.map((t) => t.nodeId).filter((n) => n > 0));
    const nodes = nodeIds.length
      ? await this.#em.find(NodeEntity, { id: { $in: nodeIds } }, { fields: ['id', 'name'] })
      : [];
    const nodeName = new Map(nodes.map((n) => [n.id, n.name]));
    return new Map(
      tasks.map((t) => [
        t.id,
        {
          targets: links
            .filter((l) => l.taskId === t.id)
            .map((l) => ({ id: l.storageTargetId, name: targetName.get(l.storageTargetId) ?? '' })),
          nodeName: t.nodeLabel !== '' ? '' : t.nodeId === 0 ? 'master' : (nodeName.get(t.nodeId) ?? ''),
        },
      ]),
    );
  }

  #draftOf(t: BackupTask, storageTargetIds: number[]): Draft {
    return {
      name: t.name,
      type: t.type,
      enabled: t.enabled,
      cronExpr: t.cronExpr,
      sourcePaths: jsonList(t.sourcePaths),
      excludePatterns: jsonList(t.excludePatterns),
      dbHost: t.dbHost,
      dbPort: t.dbPort,
      dbUser: t.dbUser,
      dbName: t.dbName,
      dbPath: t.dbPath,
      storageTargetIds,
      nodeId: t.nodeId,
      nodeLabel: t.nodeLabel,
      tags: normaliseTags(t.tags),
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
      backupMode: t.backupMode,
      diffFullIntervalDays: t.diffFullIntervalDays,
      verifyEnabled: t.verifyEnabled,
      verifyCronExpr: t.verifyCronExpr,
      verifyMode: t.verifyMode,
      maintenanceWindows: t.maintenanceWindows,
      dependsOnTaskIds: jsonList(t.dependsOnTaskIds),
      replicationTargetIds: jsonList(t.replicationTargetIds),
    };
  }

  /** Applies the fields the input carries; strings are trimmed, lists de-duplicated. */
  #merge(base: Draft, input: TaskUpdate): Draft {
    const d: Draft = { ...base };
    const str = (v: string | undefined, current: string) => (v === undefined ? current : v.trim());
    d.name = str(input.name, d.name);
    d.type = str(input.type, d.type);
    d.cronExpr = str(input.cronExpr, d.cronExpr);
    d.verifyCronExpr = str(input.verifyCronExpr, d.verifyCronExpr);
    d.maintenanceWindows = str(input.maintenanceWindows, d.maintenanceWindows);
    d.dbHost = str(input.dbHost, d.dbHost);
    d.dbUser = str(input.dbUser, d.dbUser);
    d.dbName = str(input.dbName, d.dbName);
    d.dbPath = str(input.dbPath, d.dbPath);
    d.nodeLabel = str(poolLabel(input), d.nodeLabel);
    d.compression = str(input.compression, d.compression).toLowerCase();
    d.verifyMode = str(input.verifyMode, d.verifyMode).toLowerCase();
    // `sourcePath` and `storageTargetId` (0 = none) stand in for a list that is empty, absent
    // or null (a Go client's nil slice).
    if (input.sourcePaths !== undefined || input.sourcePath !== undefined) {
      const paths = (input.sourcePaths ?? []).map((s) => s.trim()).filter((s) => s !== '');
      d.sourcePaths = unique(paths.length > 0 ? paths : [input.sourcePath?.trim() ?? ''].filter((s) => s !== ''));
    }
    if (input.excludePatterns !== undefined)
      d.excludePatterns = unique((input.excludePatterns ?? []).map((s) => s.trim()).filter((s) => s !== ''));
    if (input.storageTargetIds !== undefined || input.storageTargetId !== undefined) {
      d.storageTargetIds = input.storageTargetIds?.length
        ? unique(input.storageTargetIds)
        : input.storageTargetId
          ? [input.storageTargetId]
          : [];
    }
    if (input.dependsOnTaskIds !== undefined) d.dependsOnTaskIds = unique(input.dependsOnTaskIds ?? []);
    if (input.replicationTargetIds !== undefined) d.replicationTargetIds = unique(input.replicationTargetIds ?? []);
    if (input.tags !== undefined) d.tags = normaliseTags(input.tags);
    for (const key of ['enabled', 'encrypt', 'verifyEnabled'] as const)
      if (input[key] !== undefined) d[key] = input[key];
    for (const key of [
      'dbPort',
      'nodeId',
      'retentionDays',
      'maxBackups',
      'keepDaily',
      'keepWeekly',
      'keepMonthly',
      'keepYearly',
      'slaHoursRpo',
      'rtoMinutes',
      'timeoutMinutes',
      'alertOnConsecutiveFails',
    ] as const) {
      if (input[key] !== undefined) d[key] = input[key];
    }
    const mode = backupModeOf(input.backupMode);
    if (mode !== undefined) d.backupMode = mode;
    // 0 means "not set", i.e. the default.
    if (input.diffFullIntervalDays !== undefined)
      d.diffFullIntervalDays =
        input.diffFullIntervalDays === 0 ? DIFF_FULL_INTERVAL_DEFAULT : input.diffFullIntervalDays;
    return d;
  }

  /** Every rule at once; the type is canonicalised in place. 400 BACKUP_TASK_INVALID lists each failure. */
  async #validate(em: EntityManager, d: Draft, selfId: number | undefined): Promise<void> {
    const type = this.canonicalType(d.type);
    const details = await validateTask(em, d, selfId, { type, drivers: this.#drivers.list() });
    if (details.length > 0) throw new AppError('BACKUP_TASK_INVALID', { details });
    // BackupX's rule and code: each target holds its own repository already (docs/repositories.md).
    if (d.type === 'file' && d.backupMode === 'repository' && d.replicationTargetIds.length > 0)
      throw new AppError('BACKUP_TASK_REPOSITORY_REPLICATION_UNSUPPORTED');
  }

  #columns(d: Draft) {
    return {
      name: d.name,
      type: d.type,
      enabled: d.enabled,
      cronExpr: d.cronExpr,
      sourcePaths: JSON.stringify(d.sourcePaths),
      excludePatterns: JSON.stringify(d.excludePatterns),
      dbHost: d.dbHost,
      dbPort: d.dbPort,
      dbUser: d.dbUser,
      dbName: d.dbName,
      dbPath: d.dbPath,
      nodeId: d.nodeId,
      nodeLabel: d.nodeLabel,
      tags: d.tags.join(','),
      retentionDays: d.retentionDays,
      maxBackups: d.maxBackups,
      keepDaily: d.keepDaily,
      keepWeekly: d.keepWeekly,
      keepMonthly: d.keepMonthly,
      keepYearly: d.keepYearly,
      compression: d.compression,
      encrypt: d.encrypt,
      slaHoursRpo: d.slaHoursRpo,
      rtoMinutes: d.rtoMinutes,
      timeoutMinutes: d.timeoutMinutes,
      alertOnConsecutiveFails: d.alertOnConsecutiveFails,
      // BackupX's rule: a mode applies to file tasks; any other type runs full (docs/differential.md).
      backupMode: d.type === 'file' ? d.backupMode : ('full' as const),
      diffFullIntervalDays: d.diffFullIntervalDays,
      verifyEnabled: d.verifyEnabled,
      verifyCronExpr: d.verifyCronExpr,
      verifyMode: d.verifyMode,
      maintenanceWindows: d.maintenanceWindows,
      dependsOnTaskIds: JSON.stringify(d.dependsOnTaskIds),
      replicationTargetIds: JSON.stringify(d.replicationTargetIds),
    };
  }

  /** A new sealed password, or undefined to keep the stored one (absent, empty or the mask). */
  #sealNew(password: string | undefined): string | undefined {
    if (password === undefined || password === '' || password === PASSWORD_MASK) return undefined;
    return this.#box.seal(password, DB_PASSWORD_AAD);
  }

  #link(em: EntityManager, taskId: number, targetIds: number[]): void {
    targetIds.forEach((storageTargetId, position) =>
      em.create(BackupTaskTargetEntity, { taskId, storageTargetId, position }),
    );
  }

  async #flushUnique(em: EntityManager): Promise<void> {
    try {
      await em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('BACKUP_TASK_NAME_EXISTS');
      throw err;
    }
  }
}
