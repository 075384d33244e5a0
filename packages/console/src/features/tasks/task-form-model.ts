/**
 * The task form's values and their mapping to and from the API (core/features/backup-tasks/
 * backup-task-schemas.ts TaskInput / TaskDetail). Pure (no DOM, no React): tested in
 * test/console/task-form-model.test.ts. Every TaskInput field is either a form value here or
 * named in COVERED_ELSEWHERE with the reason.
 */

/**
 * How a task type's source is described, from the database drivers the master has
 * (GET /api/database/types): `file` paths, a database file (`path`: the driver names no
 * databases and reads `dbPath`), or a server and its databases. A type not (yet) known is a server.
 */
export type SourceKind = 'file' | 'server' | 'path';

/** A database driver as GET /api/database/types describes it (the fields the form needs). */
export interface DriverInfo {
  type: string;
  aliases: string[];
  databaseNames: 'required' | 'none';
  taskFields: string[];
  defaults: Record<string, string | number | boolean>;
}

export function driverOf(type: string, drivers: readonly DriverInfo[]): DriverInfo | undefined {
  return drivers.find((d) => d.type === type) ?? drivers.find((d) => d.aliases.includes(type));
}

export function sourceKind(type: string, drivers: readonly DriverInfo[]): SourceKind {
  if (type === 'file' || type === '') return 'file';
  const driver = driverOf(type, drivers);
  return driver && driver.databaseNames === 'none' && driver.taskFields.includes('dbPath') ? 'path' : 'server';
}

/** The driver's port when the task leaves `dbPort` empty. */
export function defaultPort(type: string, drivers: readonly DriverInfo[]): number | undefined {
  const port = driverOf(type, drivers)?.defaults.dbPort;
  return typeof port === 'number' ? port : undefined;
}

export type Placement = 'master' | 'node' | 'pool';

export interface TaskFormValues {
  name: string;
  type: string;
  enabled: boolean;
  tags: string[];
  sourcePaths: string[];
  excludePatterns: string[];
  dbHost: string;
  dbPort: number | '';
  dbUser: string;
  /** '' keeps a stored password on edit (the API answers it masked). */
  dbPassword: string;
  /** Database names; the API takes them comma-separated in `dbName`. */
  dbNames: string[];
  dbPath: string;
  storageTargetIds: string[];
  replicationTargetIds: string[];
  placement: Placement;
  nodeId: string;
  nodeLabel: string;
  cronExpr: string;
  maintenanceWindows: string;
  timeoutMinutes: number | '';
  dependsOnTaskIds: string[];
  retentionDays: number | '';
  maxBackups: number | '';
  keepDaily: number | '';
  keepWeekly: number | '';
  keepMonthly: number | '';
  keepYearly: number | '';
  compression: string;
  encrypt: boolean;
  verifyEnabled: boolean;
  verifyCronExpr: string;
  verifyMode: string;
  slaHoursRpo: number | '';
  rtoMinutes: number | '';
  alertOnConsecutiveFails: number | '';
  backupMode: string;
  diffFullIntervalDays: number | '';
}

/** TaskInput fields that are not form values of their own, and why. */
export const COVERED_ELSEWHERE = {
  sourcePath: 'legacy single path, folded into sourcePaths by the server',
  storageTargetId: 'legacy single target, replaced by storageTargetIds',
  nodePoolTag: "BackupX's name for nodeLabel",
  dbName: 'the dbNames list, joined with commas',
  nodeId: 'placement + nodeId',
  nodeLabel: 'placement + nodeLabel',
  extraConfig: 'only an empty object is accepted (no type-specific extra settings)',
} as const;

/** The server's defaults for a new task (core/features/backup-tasks/backup-task-service.ts TASK_DEFAULTS). */
export function emptyTaskForm(): TaskFormValues {
  return {
    name: '',
    type: 'file',
    enabled: true,
    tags: [],
    sourcePaths: [],
    excludePatterns: [],
    dbHost: '',
    dbPort: '',
    dbUser: '',
    dbPassword: '',
    dbNames: [],
    dbPath: '',
    storageTargetIds: [],
    replicationTargetIds: [],
    placement: 'master',
    nodeId: '',
    nodeLabel: '',
    cronExpr: '',
    maintenanceWindows: '',
    timeoutMinutes: 0,
    dependsOnTaskIds: [],
    retentionDays: 30,
    maxBackups: 10,
    keepDaily: 0,
    keepWeekly: 0,
    keepMonthly: 0,
    keepYearly: 0,
    compression: 'zstd',
    encrypt: true,
    verifyEnabled: false,
    verifyCronExpr: '',
    verifyMode: 'quick',
    slaHoursRpo: 0,
    rtoMinutes: 0,
    alertOnConsecutiveFails: 1,
    backupMode: 'full',
    diffFullIntervalDays: 7,
  };
}

/** What the form reads of a task (GET /api/backup/tasks/{id}); structural, so the generated type fits. */
export interface TaskDetailLike {
  name: string;
  type: string;
  enabled: boolean;
  tags: string;
  sourcePaths: string[];
  excludePatterns: string[];
  dbHost: string;
  dbPort: number;
  dbUser: string;
  dbName: string;
  dbPath: string;
  storageTargetIds: number[];
  replicationTargetIds: number[];
  nodeId: number;
  nodeLabel: string;
  cronExpr: string;
  maintenanceWindows: string;
  timeoutMinutes: number;
  dependsOnTaskIds: number[];
  retentionDays: number;
  maxBackups: number;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  keepYearly: number;
  compression: string;
  encrypt: boolean;
  verifyEnabled: boolean;
  verifyCronExpr: string;
  verifyMode: string;
  slaHoursRpo: number;
  rtoMinutes: number;
  alertOnConsecutiveFails: number;
  backupMode: string;
  diffFullIntervalDays: number;
}

const ids = (list: number[]) => list.map(String);
const splitList = (s: string) =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

export function formFromTask(t: TaskDetailLike): TaskFormValues {
  return {
    name: t.name,
    type: t.type,
    enabled: t.enabled,
    tags: splitList(t.tags),
    sourcePaths: [...t.sourcePaths],
    excludePatterns: [...t.excludePatterns],
    dbHost: t.dbHost,
    dbPort: t.dbPort || '',
    dbUser: t.dbUser,
    dbPassword: '',
    dbNames: splitList(t.dbName),
    dbPath: t.dbPath,
    storageTargetIds: ids(t.storageTargetIds),
    replicationTargetIds: ids(t.replicationTargetIds),
    placement: t.nodeLabel ? 'pool' : t.nodeId > 0 ? 'node' : 'master',
    nodeId: t.nodeId > 0 ? String(t.nodeId) : '',
    nodeLabel: t.nodeLabel,
    cronExpr: t.cronExpr,
    maintenanceWindows: t.maintenanceWindows,
    timeoutMinutes: t.timeoutMinutes,
    dependsOnTaskIds: ids(t.dependsOnTaskIds),
    retentionDays: t.retentionDays,
    maxBackups: t.maxBackups,
    keepDaily: t.keepDaily,
    keepWeekly: t.keepWeekly,
    keepMonthly: t.keepMonthly,
    keepYearly: t.keepYearly,
    compression: t.compression,
    encrypt: t.encrypt,
    verifyEnabled: t.verifyEnabled,
    verifyCronExpr: t.verifyCronExpr,
    verifyMode: t.verifyMode,
    slaHoursRpo: t.slaHoursRpo,
    rtoMinutes: t.rtoMinutes,
    alertOnConsecutiveFails: t.alertOnConsecutiveFails,
    backupMode: t.backupMode || 'full',
    diffFullIntervalDays: t.diffFullIntervalDays,
  };
}

const num = (v: number | '') => (v === '' ? 0 : v);
const toIds = (list: string[]) => list.map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);

/**
 * The body of POST /api/backup/tasks (and of PUT, which takes any subset). Source fields of
 * other kinds are sent empty so a task switched from one type to another keeps nothing stale;
 * the password only when one was typed (on edit, '' keeps the stored one).
 */
export function taskInputFromForm(v: TaskFormValues, drivers: readonly DriverInfo[]) {
  const kind = sourceKind(v.type, drivers);
  const clean = (list: string[]) => list.map((s) => s.trim()).filter((s) => s !== '');
  return {
    name: v.name.trim(),
    type: v.type,
    enabled: v.enabled,
    tags: clean(v.tags),
    sourcePaths: kind === 'file' ? clean(v.sourcePaths) : [],
    excludePatterns: kind === 'file' ? clean(v.excludePatterns) : [],
    dbHost: kind === 'server' ? v.dbHost.trim() : '',
    dbPort: kind === 'server' ? num(v.dbPort) : 0,
    dbUser: kind === 'server' ? v.dbUser.trim() : '',
    ...(kind === 'server' && v.dbPassword !== '' ? { dbPassword: v.dbPassword } : {}),
    dbName: kind === 'server' ? clean(v.dbNames).join(',') : '',
    dbPath: kind === 'path' ? v.dbPath.trim() : '',
    storageTargetIds: toIds(v.storageTargetIds),
    replicationTargetIds: toIds(v.replicationTargetIds),
    nodeId: v.placement === 'node' ? num(Number(v.nodeId) || 0) : 0,
    nodeLabel: v.placement === 'pool' ? v.nodeLabel.trim() : '',
    cronExpr: v.cronExpr.trim(),
    maintenanceWindows: v.maintenanceWindows.trim(),
    timeoutMinutes: num(v.timeoutMinutes),
    dependsOnTaskIds: toIds(v.dependsOnTaskIds),
    retentionDays: num(v.retentionDays),
    maxBackups: num(v.maxBackups),
    keepDaily: num(v.keepDaily),
    keepWeekly: num(v.keepWeekly),
    keepMonthly: num(v.keepMonthly),
    keepYearly: num(v.keepYearly),
    compression: v.compression,
    encrypt: v.encrypt,
    verifyEnabled: v.verifyEnabled,
    verifyCronExpr: v.verifyCronExpr.trim(),
    verifyMode: v.verifyMode,
    slaHoursRpo: num(v.slaHoursRpo),
    rtoMinutes: num(v.rtoMinutes),
    alertOnConsecutiveFails: num(v.alertOnConsecutiveFails),
    backupMode: v.backupMode,
    diffFullIntervalDays: num(v.diffFullIntervalDays),
  };
}

/** API field → form field, where they differ. */
const FIELD_OF: Record<string, keyof TaskFormValues> = {
  sourcePath: 'sourcePaths',
  storageTargetId: 'storageTargetIds',
  nodePoolTag: 'nodeLabel',
  dbName: 'dbNames',
  extraConfig: 'type',
};

/**
 * Server validation details (`[{path, message}]` of INVALID_INPUT — `body/name` — or of
 * BACKUP_TASK_INVALID — `sourcePaths/0`) as form errors by field; what names no field goes to `rest`.
 */
export function fieldErrors(details: unknown): {
  byField: Partial<Record<keyof TaskFormValues, string>>;
  rest: string[];
} {
  const byField: Partial<Record<keyof TaskFormValues, string>> = {};
  const rest: string[] = [];
  if (!Array.isArray(details)) return { byField, rest };
  const fields = new Set(Object.keys(emptyTaskForm()));
  for (const d of details as { path?: unknown; message?: unknown }[]) {
    const path = typeof d.path === 'string' ? d.path : '';
    const message = typeof d.message === 'string' ? d.message : 'invalid';
    const parts = path.replace(/^(body)?\/?/, '').split('/');
    const key = parts[0] ?? '';
    const field = FIELD_OF[key] ?? (fields.has(key) ? (key as keyof TaskFormValues) : undefined);
    if (!field) {
      rest.push(path ? `${path}: ${message}` : message);
      continue;
    }
    const index = parts[1] !== undefined && /^\d+$/.test(parts[1]) ? ` (#${Number(parts[1]) + 1})` : '';
    const text = `${message}${index}`;
    byField[field] = byField[field] ? `${byField[field]}; ${text}` : text;
  }
  return { byField, rest };
}
