import { Type, type Static, type TSchema } from 'typebox';
import { NullableTimestamp, Timestamp } from '../../http/schemas.ts';
import { RecordDetail } from '../backup-records/backup-record-schemas.ts';

const Int = Type.Integer({ minimum: -2_147_483_648, maximum: 2_147_483_647 });
const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
/** A list a Go client may send as `null`: its nil slice, an empty list. */
const List = <T extends TSchema>(item: T, maxItems: number) =>
  Type.Optional(Type.Union([Type.Array(item, { maxItems }), Type.Null()]));

/**
 * Task input. Types and lengths are checked here (400 INVALID_INPUT); the rules that need the
 * database or a parser (cron, paths, targets, dependencies, ranges) are checked by the service
 * and answer 400 BACKUP_TASK_INVALID with per-field details.
 */
export const TaskInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  enabled: Type.Optional(Type.Boolean()),
  cronExpr: Type.Optional(Type.String({ maxLength: 64 })),
  /** Legacy single path, folded into `sourcePaths`. */
  sourcePath: Type.Optional(Type.String({ maxLength: 500 })),
  sourcePaths: List(Type.String({ maxLength: 500 }), 100),
  excludePatterns: List(Type.String({ maxLength: 500 }), 200),
  dbHost: Type.Optional(Type.String({ maxLength: 255 })),
  dbPort: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535 })),
  dbUser: Type.Optional(Type.String({ maxLength: 100 })),
  dbPassword: Type.Optional(Type.String({ maxLength: 255 })),
  dbName: Type.Optional(Type.String({ maxLength: 255 })),
  dbPath: Type.Optional(Type.String({ maxLength: 500 })),
  storageTargetIds: List(Id, 20),
  /** Legacy single target, used when `storageTargetIds` is absent or empty; 0 is "none". */
  storageTargetId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  nodeId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  /** Run on the least busy online node with this label instead of one node. */
  nodeLabel: Type.Optional(Type.String({ maxLength: 64 })),
  /** Another name for `nodeLabel` (docs/api-decisions.md); when both are sent they must agree. */
  nodePoolTag: Type.Optional(Type.String({ maxLength: 64 })),
  tags: Type.Optional(
    Type.Union([Type.String({ maxLength: 500 }), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })]),
  ),
  retentionDays: Type.Optional(Int),
  maxBackups: Type.Optional(Int),
  keepDaily: Type.Optional(Int),
  keepWeekly: Type.Optional(Int),
  keepMonthly: Type.Optional(Int),
  keepYearly: Type.Optional(Int),
  compression: Type.Optional(Type.String({ maxLength: 16 })),
  encrypt: Type.Optional(Type.Boolean()),
  slaHoursRpo: Type.Optional(Int),
  rtoMinutes: Type.Optional(Int),
  /** Run time limit in minutes (0 = none); checked by the service (0..10080). */
  timeoutMinutes: Type.Optional(Int),
  alertOnConsecutiveFails: Type.Optional(Int),
  verifyEnabled: Type.Optional(Type.Boolean()),
  verifyCronExpr: Type.Optional(Type.String({ maxLength: 64 })),
  verifyMode: Type.Optional(Type.String({ maxLength: 16 })),
  maintenanceWindows: Type.Optional(Type.String({ maxLength: 500 })),
  dependsOnTaskIds: List(Id, 50),
  replicationTargetIds: List(Id, 20),
  /** `full` ('' means full), `differential` or `repository` (file tasks; others run full). */
  backupMode: Type.Optional(Type.String({ maxLength: 32 })),
  /** A differential's base full is at most this many days old (0 = the default, 7); an older one makes the run a full. */
  diffFullIntervalDays: Type.Optional(Int),
  /** Type-specific settings: only an empty object or null is accepted (see reference-options.ts). */
  extraConfig: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
});
export type TaskInput = Static<typeof TaskInput>;

/** Update: any subset; absent fields keep their stored values. */
export const TaskUpdate = Type.Partial(TaskInput);
export type TaskUpdate = Static<typeof TaskUpdate>;

/** No limit by default: a console loads the whole list in one request (fleets of 100+ tasks). */
export const TaskListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  tag: Type.Optional(Type.String({ maxLength: 64 })),
  type: Type.Optional(Type.String({ maxLength: 64 })),
  enabled: Type.Optional(Type.Boolean()),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

export const TaskSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  cronExpr: Type.String(),
  storageTargetId: Type.Integer(),
  storageTargetName: Type.String(),
  storageTargetIds: Type.Array(Type.Integer()),
  storageTargetNames: Type.Array(Type.String()),
  nodeId: Type.Integer(),
  nodeName: Type.String(),
  nodeLabel: Type.String(),
  /** Another name for `nodeLabel`, same value. */
  nodePoolTag: Type.String(),
  tags: Type.String(),
  retentionDays: Type.Integer(),
  maxBackups: Type.Integer(),
  keepDaily: Type.Integer(),
  keepWeekly: Type.Integer(),
  keepMonthly: Type.Integer(),
  keepYearly: Type.Integer(),
  compression: Type.String(),
  encrypt: Type.Boolean(),
  slaHoursRpo: Type.Integer(),
  rtoMinutes: Type.Integer(),
  timeoutMinutes: Type.Integer(),
  alertOnConsecutiveFails: Type.Integer(),
  verifyEnabled: Type.Boolean(),
  verifyCronExpr: Type.String(),
  verifyMode: Type.String(),
  maintenanceWindows: Type.String(),
  dependsOnTaskIds: Type.Array(Type.Integer()),
  replicationTargetIds: Type.Array(Type.Integer()),
  /** `full`, or `differential` (file tasks): what changed since a full (docs/differential.md). */
  backupMode: Type.Union([Type.Literal('full'), Type.Literal('differential'), Type.Literal('repository')]),
  diffFullIntervalDays: Type.Integer(),
  lastRunAt: NullableTimestamp,
  lastStatus: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TaskDetail = Type.Intersect([
  TaskSummary,
  Type.Object({
    sourcePath: Type.String(),
    sourcePaths: Type.Array(Type.String()),
    excludePatterns: Type.Array(Type.String()),
    dbHost: Type.String(),
    dbPort: Type.Integer(),
    dbUser: Type.String(),
    dbName: Type.String(),
    dbPath: Type.String(),
    /** `********` when a password is stored, '' when not: never the password. */
    dbPassword: Type.String(),
    maskedFields: Type.Array(Type.String()),
  }),
]);

export const BatchIds = Type.Object({ ids: Type.Array(Type.Integer(), { maxItems: 1000 }) });
export const BatchToggle = Type.Object({
  ids: Type.Array(Type.Integer(), { maxItems: 1000 }),
  enabled: Type.Boolean(),
});

/**
 * One batch item (`{id, name?, success, error?}`, absent fields left out as Go's omitempty
 * does): `name` when the task was found, `error` and `code` only on failure.
 */
const BatchItem = {
  id: Type.Integer(),
  name: Type.Optional(Type.String()),
  success: Type.Boolean(),
  error: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
};
export const BatchResult = Type.Array(Type.Object(BatchItem));
/** A batch run item also names the record a started run got. */
export const BatchRunResult = Type.Array(Type.Object({ ...BatchItem, recordId: Type.Optional(Type.Integer()) }));

/** A started run: the record's detail, as `GET /api/backup/records/:id` gives it, plus `recordId`. */
export const RunAccepted = Type.Object({ ...RecordDetail.properties, recordId: Type.Integer() });
