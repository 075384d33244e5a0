import type { JsonSchema, OptionDoc } from '@backplane/plugin-api';
import type { RcloneBackend, RcloneOption } from './catalogue.ts';

/**
 * From rclone's description of a backend to Backplane's: field docs, the JSON Schema of a
 * target's config, and which fields are secrets. Config fields are rclone's own option names
 * (`url`, `user`, `pass`, `secret_access_key`...) plus `path`, the folder inside the remote.
 */

/** The config field that says where inside the remote the backups go. */
export const ROOT_FIELD = 'path';

/** Credential-like option names rclone does not flag as passwords (tokens, keys, JSON credentials). */
const SECRET_NAMES = new Set([
  'secret',
  'password',
  'pass',
  'token',
  'key',
  'access_key_id',
  'secret_access_key',
  'session_token',
  'account_key',
  'sas_url',
  'client_secret',
  'service_account_credentials',
  'key_pem',
  'api_key',
  'sse_customer_key',
  'sse_customer_key_base64',
  'private_access_key',
  'refresh_token',
  'auth_token',
  'access_token',
  'bearer_token',
  'permanent_token',
  'application_credential_secret',
  'library_key',
  'link_password',
  'plex_password',
  'plex_token',
  'file_password',
  'folder_password',
  'api_password',
]);
/** Name endings that mark a credential: `*_password`, `*_secret`, `*_token`, `*_key`, `*_credentials`. */
const SECRET_SUFFIX = /(^|_)(pass|password|secret|token|key|credentials)$/;

/** True when an option holds a secret: rclone flags it as a password, or its name says credential. */
export function isSecretOption(name: string, option?: Pick<RcloneOption, 'IsPassword' | 'Type'>): boolean {
  if (option?.IsPassword) return true;
  if (option?.Type === 'bool' || option?.Type === 'int' || option?.Type === 'Tristate') return false;
  return SECRET_NAMES.has(name) || SECRET_SUFFIX.test(name);
}

/** Options that rclone stores obscured: it expects them obscured in its environment too. */
export function passwordOptions(backend: RcloneBackend | undefined): Set<string> {
  return new Set((backend?.Options ?? []).filter((o) => o.IsPassword).map((o) => o.Name));
}

/**
 * rclone lists some options once per provider (s3's `endpoint`, `region`...). One field per
 * name: the generic entry's help (else the first), the union of examples, required only when
 * the provider-independent entry is.
 */
export function mergeOptions(options: RcloneOption[]): RcloneOption[] {
  const byName = new Map<string, RcloneOption>();
  for (const option of options) {
    const seen = byName.get(option.Name);
    if (!seen) {
      byName.set(option.Name, {
        ...option,
        Required: Boolean(option.Required) && !option.Provider,
        Examples: [...(option.Examples ?? [])],
      });
      continue;
    }
    const generic = !option.Provider && seen.Provider;
    byName.set(option.Name, {
      ...(generic ? option : seen),
      Required: Boolean(seen.Required) || (Boolean(option.Required) && !option.Provider),
      IsPassword: Boolean(seen.IsPassword) || Boolean(option.IsPassword),
      Examples: [...(seen.Examples ?? []), ...(option.Examples ?? [])],
      Provider: generic ? '' : seen.Provider,
    });
  }
  return [...byName.values()];
}

const BOOL_STRINGS = '^(true|false|True|False|TRUE|FALSE|t|f|T|F|1|0)$';
const MAX_VALUE = 64 * 1024;

/** The JSON Schema of one option's value: booleans and integers also accepted as strings (forms send strings). */
function valueSchema(option: RcloneOption, help: string): JsonSchema {
  const base = { description: help };
  switch (option.Type) {
    case 'bool':
    case 'Tristate':
      return { ...base, type: ['boolean', 'string'], pattern: BOOL_STRINGS };
    case 'int':
      return { ...base, type: ['integer', 'string'], pattern: '^-?[0-9]+$' };
    default:
      return { ...base, type: 'string', maxLength: MAX_VALUE };
  }
}

function firstParagraph(help: string): string {
  return (
    help
      .split(/\n\s*\n/)[0]
      ?.replace(/\s+/g, ' ')
      .trim() ?? ''
  );
}

function examplesOf(option: RcloneOption): string[] {
  return [...new Set((option.Examples ?? []).map((e) => e.Value).filter((v) => typeof v === 'string' && v !== ''))];
}

function rootHelp(backend: string): string {
  if (backend === 'local')
    return 'Absolute path of the folder on this machine that holds the backups (rclone local backend).';
  if (['s3', 'gcs', 'azureblob', 'b2', 'swift', 'qingstor', 'oos', 'storj', 'internetarchive'].includes(backend)) {
    return 'Where inside the remote the backups go: the bucket (container), optionally followed by a folder, e.g. `backups/backplane`.';
  }
  return (
    "Where inside the remote the backups go: a folder path, relative to the remote's root" +
    ' (or absolute where the backend allows, e.g. sftp). Empty = the root.'
  );
}

/** The root field's schema: `local` needs an absolute path (a relative one would depend on the working directory). */
export function rootSchema(backend: string): JsonSchema {
  return backend === 'local'
    ? { type: 'string', minLength: 1, maxLength: 4096, pattern: '^/', description: rootHelp(backend) }
    : { type: 'string', maxLength: 4096, description: rootHelp(backend) };
}

export interface BackendDescription {
  options: OptionDoc[];
  configSchema: JsonSchema;
  secretFields: string[];
}

/** Field docs, config schema and secret fields of one backend of the catalogue. */
export function describeBackend(backend: RcloneBackend): BackendDescription {
  const options = mergeOptions(backend.Options).filter((o) => o.Name !== ROOT_FIELD && /^[a-z0-9_]+$/i.test(o.Name));
  const required = options.filter((o) => o.Required).map((o) => o.Name);
  const docs: OptionDoc[] = [
    {
      name: ROOT_FIELD,
      help: rootHelp(backend.Prefix),
      required: backend.Prefix === 'local',
      secret: false,
      ...(backend.Prefix === 'local' ? { examples: ['/var/backups/backplane'] } : {}),
    },
  ];
  const properties: Record<string, JsonSchema> = { [ROOT_FIELD]: rootSchema(backend.Prefix) };
  const secretFields: string[] = [];
  for (const option of options) {
    const secret = isSecretOption(option.Name, option);
    if (secret) secretFields.push(option.Name);
    const examples = examplesOf(option);
    docs.push({
      name: option.Name,
      help: (option.Help ?? '').trim(),
      required: Boolean(option.Required),
      secret,
      ...(option.DefaultStr ? { default: option.DefaultStr } : {}),
      advanced: Boolean(option.Advanced) || Boolean(option.Hide),
      ...(examples.length > 0 && !secret ? { examples } : {}),
    });
    properties[option.Name] = valueSchema(option, firstParagraph(option.Help ?? ''));
  }
  return {
    options: docs,
    configSchema: {
      type: 'object',
      additionalProperties: false,
      required: backend.Prefix === 'local' ? [ROOT_FIELD, ...required] : required,
      properties,
    },
    secretFields,
  };
}

/**
 * A config value as rclone's environment carries it; undefined for "not set" (absent, null,
 * empty), so that rclone's own default applies.
 */
export function envValue(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value;
  return undefined;
}
