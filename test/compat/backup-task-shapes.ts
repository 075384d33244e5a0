import { Type } from 'typebox';
import { Ref, Opt, Nullable, Time } from './reference-shape.ts';

/**
 * What BackupX's clients read about tasks, templates and task files, as TypeBox. Sources:
 * BackupX web/src/types/backup-tasks.ts, web/src/services/backup-tasks.ts,
 * web/src/services/task-templates.ts, server/internal/service/task_export_service.go.
 */

const Int = Type.Integer();
const Str = Type.String();
const Bool = Type.Boolean();
const Ids = Type.Array(Int);
const Strs = Type.Array(Str);
const OneOf = (...values: string[]) => Type.Union(values.map((v) => Type.Literal(v)));

/** web/src/types/backup-tasks.ts: BackupTaskType (Backplane answers the canonical type). */
export const TaskType = OneOf('file', 'mysql', 'sqlite', 'postgresql', 'saphana', 'mongodb');

/** web/src/types/backup-tasks.ts: BackupTaskSummary. */
export const TaskSummary = Ref({
  id: Int,
  name: Str,
  type: TaskType,
  enabled: Bool,
  cronExpr: Str,
  storageTargetId: Int,
  storageTargetName: Str,
  storageTargetIds: Ids,
  storageTargetNames: Strs,
  nodeId: Int,
  nodeName: Opt(Str),
  nodePoolTag: Opt(Str),
  tags: Str,
  retentionDays: Int,
  compression: OneOf('gzip', 'zstd', 'none'),
  encrypt: Bool,
  maxBackups: Int,
  keepDaily: Int,
  keepWeekly: Int,
  keepMonthly: Int,
  keepYearly: Int,
  backupMode: OneOf('full', 'differential', 'repository'),
  diffFullIntervalDays: Int,
  // `lastRunAt?: string` (Go omitempty); Backplane sends null before the first run, which the
  // console's formatDateTime treats as absent (documented in docs/api-decisions.md).
  lastRunAt: Opt(Nullable(Time)),
  lastStatus: Str,
  verifyEnabled: Bool,
  verifyCronExpr: Str,
  verifyMode: OneOf('quick', 'deep'),
  slaHoursRpo: Int,
  alertOnConsecutiveFails: Int,
  replicationTargetIds: Ids,
  maintenanceWindows: Str,
  dependsOnTaskIds: Ids,
  updatedAt: Time,
});

/** web/src/types/backup-tasks.ts: BackupTaskDetail. */
export const TaskDetail = Type.Intersect([
  TaskSummary,
  Ref({
    sourcePath: Str,
    sourcePaths: Strs,
    excludePatterns: Strs,
    dbHost: Str,
    dbPort: Int,
    dbUser: Str,
    dbName: Str,
    dbPath: Str,
    extraConfig: Opt(Type.Record(Str, Type.Unknown())),
    maskedFields: Opt(Strs),
    createdAt: Time,
  }),
]);

/** web/src/types/backup-tasks.ts: BackupTaskPayload, without `name` (a Backplane template payload has none). */
export const TaskPayloadWithoutName = Ref({
  type: TaskType,
  enabled: Bool,
  cronExpr: Str,
  sourcePath: Str,
  sourcePaths: Strs,
  excludePatterns: Strs,
  dbHost: Str,
  dbPort: Int,
  dbUser: Str,
  dbPassword: Str,
  dbName: Str,
  dbPath: Str,
  storageTargetId: Int,
  storageTargetIds: Ids,
  nodeId: Int,
  nodePoolTag: Opt(Str),
  tags: Str,
  retentionDays: Int,
  compression: OneOf('gzip', 'zstd', 'none'),
  encrypt: Bool,
  maxBackups: Int,
  keepDaily: Int,
  keepWeekly: Int,
  keepMonthly: Int,
  keepYearly: Int,
  backupMode: OneOf('full', 'differential', 'repository'),
  diffFullIntervalDays: Int,
  extraConfig: Opt(Type.Record(Str, Type.Unknown())),
  verifyEnabled: Bool,
  verifyCronExpr: Str,
  verifyMode: OneOf('quick', 'deep'),
  slaHoursRpo: Int,
  alertOnConsecutiveFails: Int,
  replicationTargetIds: Ids,
  maintenanceWindows: Str,
  dependsOnTaskIds: Ids,
});

/** web/src/services/backup-tasks.ts: BatchResult (batch toggle, delete and run). */
export const BatchResult = Ref({ id: Int, name: Opt(Str), success: Bool, error: Opt(Str) });

/** web/src/services/backup-tasks.ts: TaskImportResult. */
export const ImportResult = Ref({ name: Str, taskId: Opt(Int), success: Bool, error: Opt(Str), skipped: Opt(Bool) });

/** server/internal/service/task_export_service.go: ExportedTask, the Go types its json decoder needs. */
export const ExportedTask = Ref({
  name: Str,
  type: Str,
  enabled: Bool,
  cronExpr: Opt(Str),
  sourcePath: Opt(Str),
  sourcePaths: Opt(Strs),
  excludePatterns: Opt(Strs),
  dbHost: Opt(Str),
  dbPort: Opt(Int),
  dbUser: Opt(Str),
  dbName: Opt(Str),
  dbPath: Opt(Str),
  extraConfig: Opt(Type.Record(Str, Type.Unknown())),
  storageTargetNames: Strs,
  replicationTargetNames: Opt(Strs),
  nodeName: Opt(Str),
  dependsOnTaskNames: Opt(Strs),
  tags: Opt(Str),
  compression: Opt(Str),
  encrypt: Opt(Bool),
  retentionDays: Opt(Int),
  maxBackups: Opt(Int),
  verifyEnabled: Opt(Bool),
  verifyCronExpr: Opt(Str),
  verifyMode: Opt(Str),
  slaHoursRpo: Opt(Int),
  alertOnConsecutiveFails: Opt(Int),
  maintenanceWindows: Opt(Str),
});

/** server/internal/service/task_export_service.go: ExportPayload. */
export const ExportPayload = Ref({
  version: Type.Literal('v1'),
  exportedAt: Time,
  taskCount: Int,
  tasks: Type.Array(ExportedTask),
  notice: Str,
});

/** web/src/services/task-templates.ts: TaskTemplateSummary. */
export const TemplateSummary = Ref({
  id: Int,
  name: Str,
  description: Str,
  taskType: Str,
  createdBy: Str,
  createdAt: Time,
  updatedAt: Time,
});

/** web/src/services/task-templates.ts: TaskTemplateDetail. */
export const TemplateDetail = Type.Intersect([TemplateSummary, Ref({ payload: TaskPayloadWithoutName })]);

/** web/src/services/task-templates.ts: TaskTemplateApplyResult. */
export const ApplyResult = Ref({ name: Str, taskId: Opt(Int), success: Bool, error: Opt(Str) });

/**
 * The record detail the run trigger answers (web/src/types/backup-records.ts: BackupRecordDetail):
 * the fields this area's routes are read for. The record's own shape is the records suite's.
 */
export const RunRecord = Ref({ id: Int, taskId: Int, taskName: Str, status: Str, logContent: Str });

/** web/src/types/verification-records.ts: VerificationRecordDetail, the fields the task trigger is read for. */
export const VerifyRecord = Ref({
  id: Int,
  backupRecordId: Int,
  taskId: Int,
  taskName: Str,
  mode: OneOf('quick', 'deep'),
  status: Str,
  logContent: Str,
});
