import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** How a task's runs store their data: whole every time, or what changed since a full. */
export type BackupMode = 'full' | 'differential' | 'repository';

/**
 * A backup task definition. List fields (source paths, excludes, dependencies) are JSON text;
 * the storage targets live in `backup_task_targets` so a target's use can be queried.
 */
export const BackupTaskEntity = defineEntity({
  name: 'BackupTask',
  tableName: 'backup_tasks',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(100).unique(),
    /** `file` or a database-driver type (stored canonical: `pgsql` is saved as `postgresql`). */
    type: p.string().length(64),
    enabled: p.boolean().default(true),
    /** Cron expression; '' = manual only. */
    cronExpr: p.string().length(64).default(''),
    /** JSON array of absolute paths. */
    sourcePaths: p.text().default('[]'),
    /** JSON array of glob patterns. */
    excludePatterns: p.text().default('[]'),
    dbHost: p.string().length(255).default(''),
    dbPort: p.integer().default(0),
    dbUser: p.string().length(100).default(''),
    dbName: p.string().length(255).default(''),
    dbPath: p.string().length(500).default(''),
    /** Sealed with the master key (AES-256-GCM); '' when none. */
    dbPassword: p.text().default('').lazy(),
    /** 0 = the master (unless `nodeLabel` names a pool). */
    nodeId: p.integer().default(0),
    /** A placement pool: each run goes to the least busy online node with this label ('' = none). */
    nodeLabel: p.string().length(64).default(''),
    /** Normalised CSV: trimmed, no empties, no duplicates. */
    tags: p.string().length(500).default(''),
    retentionDays: p.integer().default(30),
    maxBackups: p.integer().default(10),
    keepDaily: p.integer().default(0),
    keepWeekly: p.integer().default(0),
    keepMonthly: p.integer().default(0),
    keepYearly: p.integer().default(0),
    compression: p.string().length(8).default('zstd'),
    encrypt: p.boolean().default(true),
    slaHoursRpo: p.integer().default(0),
    rtoMinutes: p.integer().default(0),
    /** A run still going after this many minutes is stopped and fails (0 = no limit). */
    timeoutMinutes: p.integer().default(0),
    alertOnConsecutiveFails: p.integer().default(1),
    /** `full`, `differential` (docs/differential.md) or `repository` (docs/repositories.md); file tasks only. */
    backupMode: p.string().length(16).$type<BackupMode>().default('full'),
    /** A differential's base is a full at most this many days old; an older one makes the run a full. */
    diffFullIntervalDays: p.integer().default(7),
    verifyEnabled: p.boolean().default(false),
    verifyCronExpr: p.string().length(64).default(''),
    verifyMode: p.string().length(8).default('quick'),
    maintenanceWindows: p.string().length(500).default(''),
    /** JSON array of storage target ids every successful artifact is copied to afterwards. */
    replicationTargetIds: p.text().default('[]'),
    /** JSON array of task ids this task depends on. */
    dependsOnTaskIds: p.text().default('[]'),
    lastRunAt: p.datetime().nullable(),
    /** The last cron fire time acted on (run or skipped); catch-up after downtime starts from here. */
    lastScheduledAt: p.datetime().nullable(),
    lastStatus: p.string().length(16).default('idle'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type BackupTask = InferEntity<typeof BackupTaskEntity>;

/** A task's storage targets, in order; position 0 is the primary. */
export const BackupTaskTargetEntity = defineEntity({
  name: 'BackupTaskTarget',
  tableName: 'backup_task_targets',
  indexes: [{ properties: ['storageTargetId'] }],
  uniques: [{ properties: ['taskId', 'storageTargetId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    taskId: p.integer(),
    storageTargetId: p.integer(),
    position: p.integer().default(0),
  },
});
export type BackupTaskTarget = InferEntity<typeof BackupTaskTargetEntity>;
