/**
 * How the settings page lays out the values of GET /api/settings (a flat map of strings), with what
 * GET /api/settings/catalogue says of each key: how to edit it (kind), what it does, its default,
 * whether it is secret and whether it is not supported yet. The console keeps only the grouping;
 * a key the catalogue does not describe is still shown, in "Other", as text (or a switch when its
 * value is true/false, a secret when it is masked), so none is hidden.
 * Pure: test/console/settings-layout.test.ts.
 */

import { SECRET_MASK } from '../../lib/config-text.ts';
export { SECRET_MASK };

/** A setting as GET /api/settings/catalogue describes it (structural, so the generated type fits). */
export interface SettingInfo {
  key: string;
  kind: 'text' | 'boolean' | 'integer' | 'url' | 'timezone' | 'language' | 'rate';
  description: string;
  default: string;
  secret: boolean;
  notYet?: string;
}

export type SettingKind = SettingInfo['kind'];
export type SettingGroup = 'general' | 'notifications' | 'security' | 'audit' | 'transfer' | 'other';

export interface SettingSpec {
  key: string;
  group: SettingGroup;
  kind: SettingKind;
  secret: boolean;
  /** The server's description ('' for a key the catalogue lacks). */
  description: string;
  /** The server's default; undefined for a key the catalogue lacks. */
  default?: string;
  /** Why the setting has no effect yet (the server refuses any value but the default). */
  notYet?: string;
}

/** Where each setting shows on the page; a key not listed goes under "Other". */
const GROUP_OF: Record<string, SettingGroup> = {
  site_name: 'general',
  language: 'general',
  timezone: 'general',
  backup_notification_enabled: 'notifications',
  mfa_required_for_admins: 'security',
  mfa_enrollment_grace_days: 'security',
  passkey_passwordless_login: 'security',
  audit_webhook_url: 'audit',
  audit_webhook_secret: 'audit',
  audit_retention_days: 'audit',
  bandwidth_limit: 'transfer',
};

export const GROUP_ORDER: SettingGroup[] = ['general', 'notifications', 'security', 'audit', 'transfer', 'other'];

export type Catalogue = readonly SettingInfo[];

export function specOf(key: string, value: string, catalogue: Catalogue): SettingSpec {
  const group = GROUP_OF[key] ?? 'other';
  const info = catalogue.find((s) => s.key === key);
  if (info) {
    return {
      key,
      group,
      kind: info.kind,
      secret: info.secret,
      description: info.description,
      default: info.default,
      ...(info.notYet ? { notYet: info.notYet } : {}),
    };
  }
  return {
    key,
    group,
    kind: value === 'true' || value === 'false' ? 'boolean' : 'text',
    secret: value === SECRET_MASK,
    description: '',
  };
}

/** Every returned key in its group, groups in a fixed order, keys in the server's order within a group. */
export function groupSettings(
  values: Record<string, string>,
  catalogue: Catalogue,
): { group: SettingGroup; specs: SettingSpec[] }[] {
  const specs = Object.entries(values).map(([k, v]) => specOf(k, v, catalogue));
  return GROUP_ORDER.map((group) => ({ group, specs: specs.filter((s) => s.group === group) })).filter(
    (g) => g.specs.length > 0,
  );
}

/** The form's starting values: a stored secret shows empty (leave it empty to keep it). */
export function formValues(values: Record<string, string>, catalogue: Catalogue): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, specOf(k, v, catalogue).secret && v === SECRET_MASK ? '' : v]),
  );
}

/**
 * The PUT body: only what changed. A secret left empty is not sent (kept); one to be cleared is
 * sent as '' (the API clears on '' and keeps on the mask).
 */
export function settingsPatch(
  stored: Record<string, string>,
  edited: Record<string, string>,
  catalogue: Catalogue,
  clearSecrets: readonly string[] = [],
): Record<string, string> {
  const patch: Record<string, string> = {};
  for (const [key, before] of Object.entries(stored)) {
    const spec = specOf(key, before, catalogue);
    const after = edited[key] ?? '';
    if (spec.secret) {
      if (clearSecrets.includes(key) && before !== '') patch[key] = '';
      else if (after !== '' && after !== SECRET_MASK) patch[key] = after;
      continue;
    }
    const value = after.trim();
    if (value !== before) patch[key] = value;
  }
  return patch;
}

/**
 * What the form can tell before the server does: integer settings hold a whole number. Their
 * ranges are the server's (the catalogue does not give them); its per-key error shows at the field.
 */
export function settingErrors(
  edited: Record<string, string>,
  stored: Record<string, string>,
  catalogue: Catalogue,
): Record<string, 'integer'> {
  const errors: Record<string, 'integer'> = {};
  for (const [key, before] of Object.entries(stored)) {
    if (specOf(key, before, catalogue).kind !== 'integer') continue;
    if (!/^\d+$/.test((edited[key] ?? '').trim())) errors[key] = 'integer';
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
