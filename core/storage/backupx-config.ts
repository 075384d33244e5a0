import type { StorageType } from '@backplane/plugin-api';
import { SECRET_MASK, configError, type ConfigIssue } from './target-config.ts';

/**
 * BackupX's config keys for the storage types Backplane serves under keys of its own.
 *
 * BackupX's console and scripts send (and read back) `basePath`, `endpoint`, `accessKeyId`,
 * `root`...; Backplane's rclone types use rclone's option names (`url`, `user`,
 * `access_key_id`...) and `path`. An incoming config is translated to Backplane's keys before
 * it is validated, so one form is stored and handed to providers and agents; responses carry
 * the BackupX names next to Backplane's (`backupxView`). Only rclone-family types are
 * translated: another plugin's `s3` has keys of its own.
 */

/** A native option to remove: BackupX's value means "rclone's default". */
const UNSET = Symbol('unset');

interface Alias {
  backupx: string;
  native: string;
  /** BackupX's value as the native option (UNSET: leave the option to rclone's default). */
  toNative?: (value: unknown) => unknown;
  /** The native value as BackupX's client reads it; `absent` is what it reads when the option is not set. */
  toBackupx?: (value: unknown) => unknown;
  absent?: unknown;
}

const isTrue = (v: unknown): boolean => v === true || (typeof v === 'string' && /^(true|t|1)$/i.test(v.trim()));
/** BackupX switches: `true` sets the rclone option; `false` leaves rclone's default (BackupX writes nothing). */
const switchAlias = (backupx: string, native: string): Alias => ({
  backupx, native, toNative: (v) => (isTrue(v) ? true : UNSET), toBackupx: isTrue, absent: false,
});
const trimSlash = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\/+$/, '') : v);

/** BackupX's built-in forms (server/internal/storage/rclone/factory.go), key by key. */
const TABLE: Record<string, Alias[]> = {
  // `endpoint` and `region` have the same names on both sides.
  s3: [
    { backupx: 'bucket', native: 'path' },
    { backupx: 'accessKeyId', native: 'access_key_id' },
    { backupx: 'secretAccessKey', native: 'secret_access_key' },
    switchAlias('forcePathStyle', 'force_path_style'),
  ],
  webdav: [
    { backupx: 'endpoint', native: 'url', toNative: trimSlash, toBackupx: trimSlash },
    { backupx: 'username', native: 'user' },
    { backupx: 'password', native: 'pass' },
    { backupx: 'basePath', native: 'path' },
  ],
  // `host` and `port` have the same names on both sides.
  ftp: [
    { backupx: 'username', native: 'user' },
    { backupx: 'password', native: 'pass' },
    { backupx: 'basePath', native: 'path' },
    // BackupX's "TLS (FTPS)" switch is explicit FTPS (AUTH TLS on the plain port).
    switchAlias('useTLS', 'explicit_tls'),
  ],
};

/** Every other rclone backend: BackupX names the folder inside the remote `root`. */
const ROOT_ALIAS: Alias = { backupx: 'root', native: 'path' };
const GENERIC = 'rclone';
const GENERIC_KEYS = new Set(['backend', 'options', 'path']);

function aliasesOf(type: StorageType): Alias[] {
  if (type.family !== 'rclone') return [];
  return TABLE[type.type] ?? [ROOT_ALIAS];
}

/** Values compared the way rclone's environment carries them (`true` = "true", 21 = "21"). */
function norm(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '' || v === UNSET) return undefined;
  return typeof v === 'string' ? v : String(v);
}
const same = (a: unknown, b: unknown): boolean => norm(a) === norm(b);

function put(config: Record<string, unknown>, key: string, value: unknown): void {
  if (value === UNSET) delete config[key];
  else config[key] = value;
}

export interface TranslatedConfig {
  /** The config under Backplane's keys. */
  config: Record<string, unknown>;
  /** Whether any BackupX key was given (errors then name BackupX's fields). */
  backupx: boolean;
  /** Settings sent under both names with different values, and BackupX's own requirements. */
  issues: ConfigIssue[];
}

/**
 * Translates BackupX's keys of `incoming` to Backplane's. When both names of one setting are
 * sent with different values, the one that differs from the stored value is the edit (a client
 * sends back the whole config it read, both names included); on create, or when both changed,
 * it is an issue naming both fields. A masked or empty secret means "keep the stored one".
 */
export function fromBackupx(type: StorageType, incoming: Record<string, unknown>, stored?: Record<string, unknown>): TranslatedConfig {
  const config: Record<string, unknown> = { ...incoming };
  const issues: ConfigIssue[] = [];
  let backupx = false;
  const keeps = (field: string, v: unknown) => type.secretFields.includes(field) && (v === '' || v === SECRET_MASK);
  for (const alias of aliasesOf(type)) {
    if (!(alias.backupx in config) || alias.backupx === alias.native) continue;
    const raw = config[alias.backupx];
    delete config[alias.backupx];
    if (raw === undefined || raw === null || keeps(alias.native, raw)) continue;
    // Both sides compared as BackupX's value would be stored (`http://x/` is `http://x`, `false` is unset).
    const canon = (v: unknown) => (alias.toNative && v !== undefined && v !== null ? alias.toNative(v) : v);
    const mapped = canon(raw);
    const native = config[alias.native];
    const before = stored?.[alias.native];
    if (native === undefined || keeps(alias.native, native)) {
      if (mapped === UNSET) continue;
      put(config, alias.native, mapped);
    } else if (same(canon(native), mapped)) {
      continue; // the same setting under both names: an echo of the detail, not BackupX's form
    } else if (stored && same(canon(native), canon(before))) {
      put(config, alias.native, mapped);
    } else if (stored && same(mapped, canon(before))) {
      continue; // Backplane's name is the edit
    } else {
      issues.push({ path: `config/${alias.backupx}`, message: `and config/${alias.native} set the same option to different values; send one of them` });
      continue;
    }
    backupx = true;
  }
  if (type.family === 'rclone' && type.type === GENERIC) backupx = flattenedOptions(config, stored, issues) || backupx;
  if (backupx) applyBackupxDefaults(type.type, config, issues);
  return { config, backupx, issues };
}

/**
 * BackupX's generic `rclone` type takes the backend's options at the top level of the config;
 * Backplane's keeps them in `options`. Top-level option keys are moved there.
 */
function flattenedOptions(config: Record<string, unknown>, stored: Record<string, unknown> | undefined, issues: ConfigIssue[]): boolean {
  const loose = Object.keys(config).filter((k) => !GENERIC_KEYS.has(k));
  if (loose.length === 0) return false;
  const sent = config.options;
  const base = sent !== null && typeof sent === 'object' && !Array.isArray(sent)
    ? { ...(sent as Record<string, unknown>) }
    : sent === undefined || sent === '' || sent === SECRET_MASK ? { ...((stored?.options as Record<string, unknown> | undefined) ?? {}) } : undefined;
  if (!base) return false; // a malformed `options` is the schema's to report
  for (const key of loose) {
    const value = config[key];
    delete config[key];
    if (key in base && !same(base[key], value) && sent !== undefined && sent !== SECRET_MASK && sent !== '') {
      issues.push({ path: `config/${key}`, message: `and config/options/${key} set the same option to different values; send one of them` });
      continue;
    }
    base[key] = value;
  }
  config.options = base;
  return true;
}

/** What BackupX's factories add to a config written in its keys. */
function applyBackupxDefaults(typeName: string, config: Record<string, unknown>, issues: ConfigIssue[]): void {
  if (typeName === 's3') {
    // factory.go: `provider=Other, env_auth=false, no_check_bucket=true`, and the bucket is required.
    config.provider ??= 'Other';
    config.no_check_bucket ??= true;
    if (!norm(config.path)) issues.push({ path: 'config/bucket', message: 'is required' });
  }
  // factory.go: an FTP target without a username logs in as `anonymous` (rclone's default is the OS user).
  if (typeName === 'ftp' && !norm(config.user)) config.user = 'anonymous';
}

/** A validation issue under the name the client used: `config/url` -> `config/endpoint` for a BackupX-keyed webdav config. */
export function backupxIssues(type: StorageType, issues: ConfigIssue[]): ConfigIssue[] {
  const byNative = new Map(aliasesOf(type).map((a) => [`config/${a.native}`, `config/${a.backupx}`]));
  return issues.map((i) => ({ ...i, path: byNative.get(i.path) ?? i.path }));
}

/**
 * The detail's config with BackupX's names added where BackupX's console reads them, masked
 * like their Backplane counterparts; `maskedFields` lists both names of a masked secret.
 */
export function backupxView(type: StorageType | undefined, view: { config: Record<string, unknown>; maskedFields: string[] }): { config: Record<string, unknown>; maskedFields: string[] } {
  if (!type) return view;
  const config = { ...view.config };
  const masked = new Set(view.maskedFields);
  for (const alias of aliasesOf(type)) {
    if (alias.backupx in config) continue;
    const value = config[alias.native];
    if (value === undefined || value === null) {
      if (alias.absent !== undefined) config[alias.backupx] = alias.absent;
      continue;
    }
    config[alias.backupx] = value === SECRET_MASK ? value : alias.toBackupx ? alias.toBackupx(value) : value;
    if (masked.has(alias.native)) masked.add(alias.backupx);
  }
  return { config, maskedFields: [...masked].sort() };
}

/**
 * BackupX's `masterRelay` on `local_disk` (its LocalDiskConfig): `true` makes a remote agent
 * stream the artifact through the master into the master's folder, which is Backplane's relay
 * (`agentDirectUpload: false`); `false` makes the agent write to `basePath` on its own disk,
 * which is Backplane's `agentDirectUpload: true`. The key is taken out of the config; it
 * decides `agentDirectUpload` unless that is sent too, where the same edit rule as for
 * aliases applies.
 */
export function masterRelayChoice(typeName: string, config: Record<string, unknown>, sentDirect: boolean | undefined, storedDirect: boolean | undefined): boolean | undefined {
  if (typeName !== 'local_disk' || !('masterRelay' in config)) return sentDirect;
  const relay = config.masterRelay;
  delete config.masterRelay;
  if (relay === undefined || relay === null) return sentDirect;
  if (typeof relay !== 'boolean') throw configError(typeName, [{ path: 'config/masterRelay', message: 'must be a boolean' }]);
  const direct = !relay;
  if (sentDirect === undefined || sentDirect === direct) return direct;
  if (storedDirect !== undefined && sentDirect === storedDirect) return direct;
  if (storedDirect !== undefined && direct === storedDirect) return sentDirect;
  throw configError(typeName, [{ path: 'config/masterRelay', message: `contradicts agentDirectUpload: ${String(sentDirect)} (masterRelay is its opposite); send one of them` }]);
}

/** `local_disk`'s view adds `masterRelay`, the opposite of `agentDirectUpload`. */
export function masterRelayView(typeName: string, config: Record<string, unknown>, agentDirectUpload: boolean): Record<string, unknown> {
  return typeName === 'local_disk' && !('masterRelay' in config) ? { ...config, masterRelay: !agentDirectUpload } : config;
}
