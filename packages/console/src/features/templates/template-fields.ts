/**
 * A template's payload (a task input without its name: core/features/task-templates) as form
 * fields, and back. Every payload key is listed here or in LEGACY_KEYS (payload-coverage.ts
 * checks that against the generated API types), so no field is dropped silently.
 * Pure (no DOM, no React): test/console/template-fields.test.ts.
 */

import { driverOf, sourceKind, type DriverInfo } from '../tasks/task-form-model.ts';

export const PASSWORD_MASK = '********';

export type Section = 'basics' | 'source' | 'database' | 'placement' | 'schedule' | 'retention' | 'verify' | 'options';
export type FieldKind =
  | 'taskType'
  | 'text'
  | 'secret'
  | 'integer'
  | 'boolean'
  | 'list'
  | 'select'
  | 'targets'
  | 'tasks'
  | 'node';

export interface TemplateField {
  key: string;
  kind: FieldKind;
  section: Section;
  choices?: readonly string[];
  min?: number;
  max?: number;
  /**
   * Shown for file tasks only, or for database tasks only; a database field only when the type's
   * driver reads it (its taskFields, dbName when it names databases), as the task form does.
   */
  only?: 'file' | 'database';
}

const int = <K extends string>(key: K, section: Section, min = 0, max = 2_147_483_647) => ({
  key,
  kind: 'integer' as const,
  section,
  min,
  max,
});

export const TEMPLATE_FIELDS = [
  { key: 'type', kind: 'taskType', section: 'basics' },
  { key: 'enabled', kind: 'boolean', section: 'basics' },
  { key: 'tags', kind: 'list', section: 'basics' },
  { key: 'sourcePaths', kind: 'list', section: 'source', only: 'file' },
  { key: 'excludePatterns', kind: 'list', section: 'source', only: 'file' },
  { key: 'dbHost', kind: 'text', section: 'database', only: 'database' },
  { ...int('dbPort', 'database', 0, 65535), only: 'database' },
  { key: 'dbUser', kind: 'text', section: 'database', only: 'database' },
  { key: 'dbPassword', kind: 'secret', section: 'database', only: 'database' },
  { key: 'dbName', kind: 'text', section: 'database', only: 'database' },
  { key: 'dbPath', kind: 'text', section: 'database', only: 'database' },
  { key: 'storageTargetIds', kind: 'targets', section: 'placement' },
  { key: 'replicationTargetIds', kind: 'targets', section: 'placement' },
  { key: 'nodeId', kind: 'node', section: 'placement' },
  { key: 'nodeLabel', kind: 'text', section: 'placement' },
  { key: 'cronExpr', kind: 'text', section: 'schedule' },
  { key: 'maintenanceWindows', kind: 'text', section: 'schedule' },
  { key: 'dependsOnTaskIds', kind: 'tasks', section: 'schedule' },
  int('timeoutMinutes', 'schedule', 0, 10080),
  int('retentionDays', 'retention'),
  int('maxBackups', 'retention'),
  int('keepDaily', 'retention'),
  int('keepWeekly', 'retention'),
  int('keepMonthly', 'retention'),
  int('keepYearly', 'retention'),
  { key: 'verifyEnabled', kind: 'boolean', section: 'verify' },
  { key: 'verifyCronExpr', kind: 'text', section: 'verify' },
  { key: 'verifyMode', kind: 'select', section: 'verify', choices: ['quick', 'deep'] },
  { key: 'compression', kind: 'select', section: 'options', choices: ['zstd', 'gzip', 'none'] },
  { key: 'encrypt', kind: 'boolean', section: 'options' },
  int('slaHoursRpo', 'options'),
  int('rtoMinutes', 'options'),
  int('alertOnConsecutiveFails', 'options'),
  int('diffFullIntervalDays', 'options'),
] as const satisfies readonly TemplateField[];

export type FieldKey = (typeof TEMPLATE_FIELDS)[number]['key'];

/**
 * Payload keys the form does not edit: BackupX's older forms of fields above, which the detail
 * derives (sourcePath = sourcePaths[0], storageTargetId = storageTargetIds[0], nodePoolTag =
 * nodeLabel, backupMode always 'full', extraConfig only ever empty). Sending them back would
 * fight the fields they mirror, so they are left out of the saved payload.
 */
export const LEGACY_KEYS = ['sourcePath', 'storageTargetId', 'nodePoolTag', 'backupMode', 'extraConfig'] as const;

export const SECTIONS: Section[] = [
  'basics',
  'source',
  'database',
  'placement',
  'schedule',
  'retention',
  'verify',
  'options',
];

export type FormValue = string | number | boolean | string[];
export type TemplateValues = Record<string, FormValue>;
export type FieldError = 'required' | 'integer' | 'range';

/** The initial values of a new template: a file task, switches as the server's defaults, the rest unset (server defaults apply). */
export function newTemplateValues(): TemplateValues {
  const values: TemplateValues = {};
  for (const f of TEMPLATE_FIELDS) values[f.key] = emptyOf(f);
  return { ...values, type: 'file', enabled: true, encrypt: true, verifyEnabled: false };
}

function emptyOf(f: TemplateField): FormValue {
  if (f.kind === 'boolean') return false;
  if (f.kind === 'list' || f.kind === 'targets' || f.kind === 'tasks') return [];
  return '';
}

const asList = (v: unknown): string[] => {
  if (Array.isArray(v)) return v.map(String).filter((s) => s !== '');
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return [];
};

/** Form values of a stored template (its detail's payload): lists as strings, the masked password empty. */
export function valuesFromPayload(payload: Record<string, unknown>): TemplateValues {
  const values: TemplateValues = {};
  for (const f of TEMPLATE_FIELDS) {
    const v = payload[f.key];
    if (f.kind === 'boolean') values[f.key] = v === true;
    else if (f.kind === 'list' || f.kind === 'targets' || f.kind === 'tasks') values[f.key] = asList(v);
    else if (f.kind === 'secret') values[f.key] = '';
    else if (f.kind === 'node') values[f.key] = typeof v === 'number' && v > 0 ? String(v) : '';
    else values[f.key] = v === undefined || v === null ? '' : typeof v === 'number' ? v : String(v);
  }
  return values;
}

export function isFileType(type: unknown, drivers: readonly DriverInfo[] = []): boolean {
  return typeof type === 'string' && sourceKind(type, drivers) === 'file';
}

/**
 * Whether a field applies to the chosen task type. A database type whose driver the master does
 * not list (not installed, or the list not loaded yet) shows every database field, so nothing a
 * stored template holds is hidden or dropped.
 */
export function applies(
  f: Pick<TemplateField, 'only' | 'key'>,
  type: unknown,
  drivers: readonly DriverInfo[],
): boolean {
  if (!f.only) return true;
  const file = isFileType(type, drivers);
  if (f.only === 'file') return file;
  if (file) return false;
  const driver = typeof type === 'string' ? driverOf(type, drivers) : undefined;
  if (!driver) return true;
  return f.key === 'dbName' ? driver.databaseNames === 'required' : driver.taskFields.includes(f.key);
}

/**
 * The payload to send, and what is wrong first. Unset fields are left out (the task gets the
 * server's default); fields that do not apply to the type (or its driver) are left out; an empty password keeps
 * the stored one (the API keeps it on absent, '' or the mask).
 */
export function payloadFromValues(
  values: TemplateValues,
  drivers: readonly DriverInfo[],
): { payload: Record<string, unknown>; errors: Record<string, FieldError> } {
  const payload: Record<string, unknown> = {};
  const errors: Record<string, FieldError> = {};
  const type = typeof values.type === 'string' ? values.type.trim() : '';
  if (!type) errors.type = 'required';
  for (const f of TEMPLATE_FIELDS as readonly TemplateField[]) {
    if (!applies(f, type, drivers)) continue;
    const v = values[f.key];
    switch (f.kind) {
      case 'boolean':
        payload[f.key] = v === true;
        break;
      case 'list':
        payload[f.key] = asList(v);
        break;
      case 'targets':
      case 'tasks':
        payload[f.key] = asList(v)
          .map(Number)
          .filter((n) => Number.isInteger(n) && n > 0);
        break;
      case 'node': {
        const n = Number(v);
        payload[f.key] = v === '' || v === undefined || !Number.isInteger(n) ? 0 : n;
        break;
      }
      case 'integer': {
        const text = String(v ?? '').trim();
        if (text === '') break;
        const n = Number(text);
        if (!Number.isInteger(n)) errors[f.key] = 'integer';
        else if ((f.min !== undefined && n < f.min) || (f.max !== undefined && n > f.max)) errors[f.key] = 'range';
        else payload[f.key] = n;
        break;
      }
      case 'secret':
        if (typeof v === 'string' && v !== '' && v !== PASSWORD_MASK) payload[f.key] = v;
        break;
      default: {
        const text = typeof v === 'string' ? v.trim() : v === undefined ? '' : String(v);
        if (f.kind === 'taskType') payload[f.key] = text;
        else if (text !== '' || f.kind === 'text') payload[f.key] = text;
      }
    }
  }
  return { payload, errors };
}
