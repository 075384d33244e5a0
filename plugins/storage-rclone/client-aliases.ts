import {
  SECRET_MASK,
  UNSET_OPTION,
  sameSetting,
  type ConfigAlias,
  type ConfigAliases,
  type ConfigIssue,
} from '@backplane/plugin-api';
import { ROOT_FIELD } from './backend-options.ts';

/**
 * Client aliases: the config keys BackupX-compatible clients use for the rclone types (BackupX's
 * server/internal/storage/rclone/factory.go). Its console and scripts send (and read back)
 * `basePath`, `endpoint`, `accessKeyId`, `root`...; these types use rclone's option names
 * (`url`, `user`, `access_key_id`...) and `path`. Core translates through the declaration
 * (StorageType.configAliases), so one form is stored and handed to the backend and to agents.
 */

const isTrue = (v: unknown): boolean => v === true || (typeof v === 'string' && /^(true|t|1)$/i.test(v.trim()));
/** BackupX switches: `true` sets the rclone option; `false` leaves rclone's default (BackupX writes nothing). */
const switchAlias = (alias: string, native: string): ConfigAlias => ({
  alias,
  native,
  toNative: (v) => (isTrue(v) ? true : UNSET_OPTION),
  toAlias: isTrue,
  absent: false,
});
const trimSlash = (v: unknown): unknown => (typeof v === 'string' ? v.trim().replace(/\/+$/, '') : v);

/** BackupX's built-in forms, key by key. */
const FORMS: Record<string, ConfigAlias[]> = {
  // `endpoint` and `region` have the same names on both sides.
  s3: [
    { alias: 'bucket', native: ROOT_FIELD },
    { alias: 'accessKeyId', native: 'access_key_id' },
    { alias: 'secretAccessKey', native: 'secret_access_key' },
    switchAlias('forcePathStyle', 'force_path_style'),
  ],
  webdav: [
    { alias: 'endpoint', native: 'url', toNative: trimSlash, toAlias: trimSlash },
    { alias: 'username', native: 'user' },
    { alias: 'password', native: 'pass' },
    { alias: 'basePath', native: ROOT_FIELD },
  ],
  // `host` and `port` have the same names on both sides.
  ftp: [
    { alias: 'username', native: 'user' },
    { alias: 'password', native: 'pass' },
    { alias: 'basePath', native: ROOT_FIELD },
    // BackupX's "TLS (FTPS)" switch is explicit FTPS (AUTH TLS on the plain port).
    switchAlias('useTLS', 'explicit_tls'),
  ],
};

/** Every other rclone backend: BackupX names the folder inside the remote `root`. */
const ROOT_ALIAS: ConfigAlias = { alias: 'root', native: ROOT_FIELD };

/** What BackupX's factories add to a config written in its keys. */
function formDefaults(backend: string): ConfigAliases['complete'] {
  if (backend === 's3') {
    return (config, { aliased, issues }) => {
      if (!aliased) return false;
      // factory.go: `provider=Other, env_auth=false, no_check_bucket=true`, and the bucket is required.
      config.provider ??= 'Other';
      config.no_check_bucket ??= true;
      if (sameSetting(config[ROOT_FIELD], undefined)) issues.push({ path: 'config/bucket', message: 'is required' });
      return true;
    };
  }
  if (backend === 'ftp') {
    // factory.go: an FTP target without a username logs in as `anonymous` (rclone's default is the OS user).
    return (config, { aliased }) => {
      if (aliased && sameSetting(config.user, undefined)) config.user = 'anonymous';
      return aliased;
    };
  }
  return undefined;
}

/** BackupX's names for the type of one rclone backend. */
export function backendAliases(backend: string): ConfigAliases {
  const complete = formDefaults(backend);
  return { fields: FORMS[backend] ?? [ROOT_ALIAS], ...(complete ? { complete } : {}) };
}

const GENERIC_KEYS = new Set(['backend', 'options', ROOT_FIELD]);

/**
 * BackupX's generic `rclone` type takes the backend's options at the top level of the config;
 * the generic type here keeps them in `options`. Top-level option keys are moved there.
 */
function flattenedOptions(
  config: Record<string, unknown>,
  { aliased, stored, issues }: { aliased: boolean; stored?: Record<string, unknown>; issues: ConfigIssue[] },
): boolean {
  const loose = Object.keys(config).filter((k) => !GENERIC_KEYS.has(k));
  if (loose.length === 0) return aliased;
  const sent = config.options;
  const base =
    sent !== null && typeof sent === 'object' && !Array.isArray(sent)
      ? { ...(sent as Record<string, unknown>) }
      : sent === undefined || sent === '' || sent === SECRET_MASK
        ? { ...((stored?.options as Record<string, unknown> | undefined) ?? {}) }
        : undefined;
  if (!base) return aliased; // a malformed `options` is the schema's to report
  for (const key of loose) {
    const value = config[key];
    delete config[key];
    if (key in base && !sameSetting(base[key], value) && sent !== undefined && sent !== SECRET_MASK && sent !== '') {
      issues.push({
        path: `config/${key}`,
        message: `and config/options/${key} set the same option to different values; send one of them`,
      });
      continue;
    }
    base[key] = value;
  }
  config.options = base;
  return true;
}

/** BackupX's names for the generic `rclone` type: `root`, and the options flat beside it. */
export const GENERIC_ALIASES: ConfigAliases = { fields: [ROOT_ALIAS], complete: flattenedOptions };
