import { Type, type Static, type TSchema } from 'typebox';

/** The only export format there is: the reference's `v1`, which Backplane reads and writes. */
export const EXPORT_VERSION = 'v1';
/** The spec's import limit; the app-wide body limit is the same, the route states it too. */
export const IMPORT_BODY_LIMIT = 1024 * 1024;
export const MAX_IMPORT_TASKS = 1000;

/** `ids=3,7,12`: positive integers separated by commas (blanks around them allowed). */
export const TaskExportQuery = Type.Object({
  ids: Type.Optional(
    Type.String({ maxLength: 17_000, pattern: '^\\s*[1-9][0-9]{0,15}\\s*(,\\s*[1-9][0-9]{0,15}\\s*)*$' }),
  ),
});

const Int = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });

/**
 * One exported task: the task input with names instead of ids and without `dbPassword`. The
 * response is serialised through this schema, so nothing else (a password above all) can slip in.
 */
export const ExportedTask = Type.Object({
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  cronExpr: Type.String(),
  sourcePath: Type.String(),
  sourcePaths: Type.Array(Type.String()),
  excludePatterns: Type.Array(Type.String()),
  dbHost: Type.String(),
  dbPort: Type.Integer(),
  dbUser: Type.String(),
  dbName: Type.String(),
  dbPath: Type.String(),
  storageTargetNames: Type.Array(Type.String()),
  replicationTargetNames: Type.Array(Type.String()),
  /** '' for the master. */
  nodeName: Type.String(),
  /** A label pool instead of one node ('' = none). */
  nodeLabel: Type.String(),
  dependsOnTaskNames: Type.Array(Type.String()),
  tags: Type.String(),
  compression: Type.String(),
  encrypt: Type.Boolean(),
  retentionDays: Type.Integer(),
  maxBackups: Type.Integer(),
  keepDaily: Type.Integer(),
  keepWeekly: Type.Integer(),
  keepMonthly: Type.Integer(),
  keepYearly: Type.Integer(),
  verifyEnabled: Type.Boolean(),
  verifyCronExpr: Type.String(),
  verifyMode: Type.String(),
  slaHoursRpo: Type.Integer(),
  rtoMinutes: Type.Integer(),
  timeoutMinutes: Type.Integer(),
  alertOnConsecutiveFails: Type.Integer(),
  /** `full` or `differential`, kept with the task (the reference's v1 leaves it out). */
  backupMode: Type.String(),
  /** A differential's base full is at most this many days old (the reference's v1 leaves it out). */
  diffFullIntervalDays: Type.Integer(),
  maintenanceWindows: Type.String(),
});
export type ExportedTask = Static<typeof ExportedTask>;

export const TaskExportFile = Type.Object({
  version: Type.Literal(EXPORT_VERSION),
  exportedAt: Type.String({ format: 'date-time' }),
  taskCount: Type.Integer(),
  notice: Type.String(),
  tasks: Type.Array(ExportedTask),
});
export type TaskExportFile = Static<typeof TaskExportFile>;

/** Absent or null: the reference writes Go nil slices as `null` and leaves zero values out. */
const Opt = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * A task as a v1 file carries it, from Backplane or from the reference. Lengths are the task
 * input's. A `dbPassword` added by hand is ignored (exports never carry one); the task
 * options the reference's v1 leaves out (`backupMode`, `nodePoolTag`, `diffFullIntervalDays`)
 * are read as the task input reads them, so an unsupported mode fails that task rather than being dropped.
 */
export const ImportedTask = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  enabled: Opt(Type.Boolean()),
  cronExpr: Opt(Type.String({ maxLength: 64 })),
  sourcePath: Opt(Type.String({ maxLength: 500 })),
  sourcePaths: Opt(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 })),
  excludePatterns: Opt(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 200 })),
  dbHost: Opt(Type.String({ maxLength: 255 })),
  dbPort: Opt(Type.Integer({ minimum: 0, maximum: 65535 })),
  dbUser: Opt(Type.String({ maxLength: 100 })),
  dbName: Opt(Type.String({ maxLength: 255 })),
  dbPath: Opt(Type.String({ maxLength: 500 })),
  /** The reference's type-specific settings (SAP HANA): a task with any key fails, as the task input refuses them. */
  extraConfig: Opt(Type.Record(Type.String(), Type.Unknown())),
  storageTargetNames: Opt(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 20 })),
  replicationTargetNames: Opt(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 20 })),
  nodeName: Opt(Type.String({ maxLength: 128 })),
  nodeLabel: Opt(Type.String({ maxLength: 64 })),
  nodePoolTag: Opt(Type.String({ maxLength: 64 })),
  dependsOnTaskNames: Opt(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 })),
  tags: Opt(
    Type.Union([Type.String({ maxLength: 500 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })]),
  ),
  compression: Opt(Type.String({ maxLength: 16 })),
  encrypt: Opt(Type.Boolean()),
  retentionDays: Opt(Int),
  maxBackups: Opt(Int),
  keepDaily: Opt(Int),
  keepWeekly: Opt(Int),
  keepMonthly: Opt(Int),
  keepYearly: Opt(Int),
  verifyEnabled: Opt(Type.Boolean()),
  verifyCronExpr: Opt(Type.String({ maxLength: 64 })),
  verifyMode: Opt(Type.String({ maxLength: 16 })),
  slaHoursRpo: Opt(Int),
  rtoMinutes: Opt(Int),
  timeoutMinutes: Opt(Int),
  alertOnConsecutiveFails: Opt(Int),
  maintenanceWindows: Opt(Type.String({ maxLength: 500 })),
  backupMode: Opt(Type.String({ maxLength: 32 })),
  diffFullIntervalDays: Opt(Int),
});
export type ImportedTask = Static<typeof ImportedTask>;

/** The file as uploaded. `exportedAt`, `taskCount` and `notice` are informational only. */
export const TaskImportBody = Type.Object({
  version: Type.String({ maxLength: 32 }),
  exportedAt: Type.Optional(Type.Unknown()),
  taskCount: Type.Optional(Type.Unknown()),
  notice: Type.Optional(Type.Unknown()),
  tasks: Type.Array(ImportedTask, { maxItems: MAX_IMPORT_TASKS }),
});
export type TaskImportBody = Static<typeof TaskImportBody>;

/**
 * One task of the file, `{name, taskId?, success, error?, skipped?}` (absent fields left out,
 * as Go's omitempty does): `taskId` is the created task, or the existing one a skipped entry
 * names; `error` is what a console shows in its "note" column: the failure, else what the operator
 * still has to do (`warnings` joined), absent when there is nothing to say.
 */
export const ImportResult = Type.Object({
  name: Type.String(),
  taskId: Type.Optional(Type.Integer()),
  /** True when the task exists afterwards: created now, or skipped because the name was taken. */
  success: Type.Boolean(),
  error: Type.Optional(Type.String()),
  skipped: Type.Boolean(),
  /** The task error's code, on failure. */
  code: Type.Optional(Type.String()),
  /** What the operator still has to do or check (a password to set, unlinked dependencies, a skipped name). */
  warnings: Type.Array(Type.String()),
});
export type ImportResult = Static<typeof ImportResult>;

export const ImportReport = Type.Array(ImportResult);
export type ImportReport = Static<typeof ImportReport>;
