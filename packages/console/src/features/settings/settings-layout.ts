/**
 * How the settings page lays out what GET /api/settings returns: a flat map of string values, with
 * no types, groups or descriptions (see the report: a settings catalogue route would carry them).
 * Known keys get a group and an input kind here; any other key the server returns is still shown,
 * in "Other", as text (or a switch when its value is true/false), so none is hidden.
 * Pure: test/console/settings-layout.test.ts.
 */

export const SECRET_MASK = '********';

export type SettingKind = 'text' | 'boolean' | 'integer' | 'url' | 'secret' | 'timezone';
export type SettingGroup = 'general' | 'notifications' | 'security' | 'audit' | 'transfer' | 'other';

export interface SettingSpec {
  key: string;
  group: SettingGroup;
  kind: SettingKind;
  min?: number;
  max?: number;
}

/** The settings of core/features/settings/settings-catalogue.ts, with the ranges it validates. */
const KNOWN: Record<string, Omit<SettingSpec, 'key'>> = {
  site_name: { group: 'general', kind: 'text' },
  language: { group: 'general', kind: 'text' },
  timezone: { group: 'general', kind: 'timezone' },
  backup_notification_enabled: { group: 'notifications', kind: 'boolean' },
  mfa_required_for_admins: { group: 'security', kind: 'boolean' },
  mfa_enrollment_grace_days: { group: 'security', kind: 'integer', min: 0, max: 90 },
  passkey_passwordless_login: { group: 'security', kind: 'boolean' },
  audit_webhook_url: { group: 'audit', kind: 'url' },
  audit_webhook_secret: { group: 'audit', kind: 'secret' },
  audit_retention_days: { group: 'audit', kind: 'integer', min: 0, max: 36500 },
  bandwidth_limit: { group: 'transfer', kind: 'text' },
};

export const GROUP_ORDER: SettingGroup[] = ['general', 'notifications', 'security', 'audit', 'transfer', 'other'];

export function specOf(key: string, value: string): SettingSpec {
  const known = KNOWN[key];
  if (known) return { key, ...known };
  return { key, group: 'other', kind: value === 'true' || value === 'false' ? 'boolean' : value === SECRET_MASK ? 'secret' : 'text' };
}

/** Every returned key in its group, groups in a fixed order, keys in the server's order within a group. */
export function groupSettings(values: Record<string, string>): { group: SettingGroup; specs: SettingSpec[] }[] {
  const specs = Object.entries(values).map(([k, v]) => specOf(k, v));
  return GROUP_ORDER.map((group) => ({ group, specs: specs.filter((s) => s.group === group) })).filter((g) => g.specs.length > 0);
}

/** The form's starting values: a stored secret shows empty (leave it empty to keep it). */
export function formValues(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, specOf(k, v).kind === 'secret' && v === SECRET_MASK ? '' : v]));
}

/**
 * The PUT body: only what changed. A secret left empty is not sent (kept); one to be cleared is
 * sent as '' (the API clears on '' and keeps on the mask).
 */
export function settingsPatch(stored: Record<string, string>, edited: Record<string, string>, clearSecrets: readonly string[] = []): Record<string, string> {
  const patch: Record<string, string> = {};
  for (const [key, before] of Object.entries(stored)) {
    const spec = specOf(key, before);
    const after = edited[key] ?? '';
    if (spec.kind === 'secret') {
      if (clearSecrets.includes(key) && before !== '') patch[key] = '';
      else if (after !== '' && after !== SECRET_MASK) patch[key] = after;
      continue;
    }
    const value = after.trim();
    if (value !== before) patch[key] = value;
  }
  return patch;
}

/** What the form can tell before the server does: integers within their ranges. */
export function settingErrors(edited: Record<string, string>, stored: Record<string, string>): Record<string, 'integer'> {
  const errors: Record<string, 'integer'> = {};
  for (const [key, before] of Object.entries(stored)) {
    const spec = specOf(key, before);
    if (spec.kind !== 'integer') continue;
    const v = (edited[key] ?? '').trim();
    const n = Number(v);
    if (!/^\d+$/.test(v) || (spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) errors[key] = 'integer';
  }
  return errors;
}

/** The server's SETTINGS_INVALID / SETTINGS_UNSUPPORTED details ({key, message}) by key, for the fields. */
export function serverFieldErrors(details: unknown): Record<string, string> {
  if (!Array.isArray(details)) return {};
  const out: Record<string, string> = {};
  for (const d of details as { key?: unknown; message?: unknown }[]) {
    if (d && typeof d.key === 'string' && typeof d.message === 'string') out[d.key] = d.message;
  }
  return out;
}
