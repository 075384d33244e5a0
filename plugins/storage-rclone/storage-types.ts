import type { ProviderDeps, StorageInstance, StorageType } from '@backplane/plugin-api';
import { describeBackend, ROOT_FIELD } from './backend-options.ts';
import type { CatalogueResult, RcloneBackend } from './catalogue.ts';
import { genericDefinition, typedDefinition, type RemoteDefinition } from './remote-definition.ts';
import { RcloneStorage } from './rclone-storage.ts';
import { UnavailableStorage } from './unavailable-storage.ts';
import { backendAliases, GENERIC_ALIASES } from './client-aliases.ts';
import { VENDORS, vendorS3Config, vendorSchema, type Vendor, type VendorConfig } from './vendor-types.ts';

/**
 * The storage types of the installed rclone: one per backend of its catalogue, under the
 * backend's own name (`s3`, `webdav`, `sftp`, `local`...), plus the generic `rclone` type.
 */

/** Backends that only wrap other remotes: nothing to point a target at on their own. */
export const WRAPPER_BACKENDS = new Set([
  'alias',
  'cache',
  'chunker',
  'combine',
  'compress',
  'crypt',
  'hasher',
  'union',
]);

/**
 * Backends that cannot hold backups with one rclone process per operation: `memory` lives
 * inside a single process, so what one operation writes the next cannot see.
 */
export const UNUSABLE_BACKENDS = new Set(['memory']);

/** Backends whose `rclone about` reports capacity (rclone 1.60's feature table). */
const ABOUT_BACKENDS = new Set([
  'acd',
  'box',
  'drive',
  'dropbox',
  'hdfs',
  'hidrive',
  'jottacloud',
  'koofr',
  'local',
  'mailru',
  'mega',
  'onedrive',
  'pcloud',
  'premiumizeme',
  'putio',
  'seafile',
  'sftp',
  'smb',
  'storj',
  'swift',
  'webdav',
  'yandex',
  'zoho',
]);

export const GENERIC_TYPE = 'rclone';
const TYPE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Where the binary and the environment of a created instance come from. */
function runtime(binary: string, deps: ProviderDeps): { binary: string; env: Record<string, string | undefined> } {
  const env = deps.env ?? process.env;
  return { binary: env.BACKPLANE_RCLONE_BINARY || binary, env };
}

function instance(binary: string, deps: ProviderDeps, definition: RemoteDefinition): StorageInstance {
  const rt = runtime(binary, deps);
  return new RcloneStorage({ binary: rt.binary, env: rt.env, definition, log: deps.log });
}

/** The type of one backend of the catalogue. */
export function backendType(backend: RcloneBackend, binary: string): StorageType {
  const { options, configSchema, secretFields } = describeBackend(backend);
  const description = (backend.Description ?? '').trim() || backend.Prefix;
  return {
    type: backend.Prefix,
    displayName: description,
    description: `${description} (rclone backend "${backend.Prefix}")`,
    family: 'rclone',
    configSchema,
    secretFields,
    options,
    configAliases: backendAliases(backend.Prefix),
    capabilities: { range: true, usage: ABOUT_BACKENDS.has(backend.Prefix), oauth: false },
    create(config, deps) {
      return instance(binary, deps, typedDefinition(backend, config));
    },
  };
}

/** The generic type: any backend by name, its options as a map. */
export function genericType(result: CatalogueResult): StorageType {
  const catalogue = result.ok ? result.catalogue : undefined;
  const names = catalogue
    ?.map((b) => b.Prefix)
    .filter((p) => !UNUSABLE_BACKENDS.has(p))
    .sort();
  return {
    type: GENERIC_TYPE,
    displayName: 'rclone (any backend)',
    description: result.ok
      ? 'Any backend of the installed rclone, configured by its rclone option names;' +
        ' for backends that have no type of their own, or settings the typed forms do not cover.'
      : `Any rclone backend by name. rclone is not installed or not usable here (${result.reason}), so targets of this type cannot be used until it is.`,
    family: 'rclone',
    configSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['backend'],
      properties: {
        backend: {
          type: 'string',
          pattern: '^[a-z][a-z0-9]{0,31}$',
          description: 'The rclone backend name (the `type` of an rclone remote), e.g. `s3`, `webdav`, `sftp`.',
          ...(names ? { examples: names } : {}),
        },
        options: {
          type: 'object',
          maxProperties: 200,
          propertyNames: { pattern: '^[A-Za-z0-9_]{1,64}$', not: { pattern: '^[Tt][Yy][Pp][Ee]$' } },
          additionalProperties: { type: ['string', 'number', 'boolean'] },
          description:
            "The remote's options by their rclone names (`url`, `user`, `pass`, `access_key_id`...)," +
            ' values in clear: passwords are obscured for rclone by Backplane.',
        },
        [ROOT_FIELD]: {
          type: 'string',
          maxLength: 4096,
          description: 'Where inside the remote the backups go (for `local`: an absolute folder path).',
        },
      },
    },
    // Which of a free-form option map are credentials is not known up front: the whole map is sealed.
    secretFields: ['options'],
    options: [
      {
        name: 'backend',
        help: 'The rclone backend name (the `type` of an rclone remote), e.g. `s3`, `webdav`, `sftp`.',
        required: true,
        secret: false,
        ...(names ? { examples: names } : {}),
      },
      {
        name: 'options',
        help:
          'The remote\'s options as an object of rclone option name -> value (`{"url": "...", "user": "...", "pass": "..."}`).' +
          ' Stored sealed as a whole, since it may hold credentials.',
        required: false,
        secret: true,
      },
      {
        name: ROOT_FIELD,
        help: 'Where inside the remote the backups go: a folder (for buckets: `bucket/folder`; for `local`: an absolute path).',
        required: false,
        secret: false,
      },
    ],
    configAliases: GENERIC_ALIASES,
    capabilities: { range: true, usage: false, oauth: false },
    create(config, deps) {
      if (!result.ok) return new UnavailableStorage(result.binary, result.reason);
      return instance(result.binary, deps, genericDefinition(config, catalogue));
    },
  };
}

const S3_STUB: RcloneBackend = { Name: 's3', Description: 'Amazon S3 compliant storage', Prefix: 's3', Options: [] };

/** A cloud vendor type (`aliyun_oss`...): its own config keys (vendor-types.ts), served by rclone's `s3` backend. */
export function vendorType(vendor: Vendor, result: CatalogueResult): StorageType {
  const s3 = (result.ok ? result.catalogue.find((b) => b.Prefix === 's3') : undefined) ?? S3_STUB;
  return {
    type: vendor.type,
    displayName: vendor.displayName,
    description: `${vendor.displayName}, through rclone's s3 backend (provider ${vendor.provider}); BackupX's type and keys.`,
    configSchema: vendorSchema(vendor),
    // Both keys are secrets.
    secretFields: ['accessKeyId', 'secretAccessKey'],
    capabilities: { range: true, usage: false, oauth: false },
    create(config, deps) {
      if (!result.ok) return new UnavailableStorage(result.binary, result.reason);
      return instance(
        result.binary,
        deps,
        typedDefinition(s3, vendorS3Config(vendor, config as unknown as VendorConfig)),
      );
    },
  };
}

/** Every type to register for a catalogue result: the backends (when rclone works), the generic type, then the cloud vendor types. */
export function rcloneStorageTypes(result: CatalogueResult): StorageType[] {
  const types: StorageType[] = [];
  if (result.ok) {
    const seen = new Set<string>();
    for (const backend of result.catalogue) {
      const name = backend.Prefix;
      if (WRAPPER_BACKENDS.has(name) || UNUSABLE_BACKENDS.has(name) || backend.Hide) continue;
      if (name === GENERIC_TYPE || !TYPE_NAME.test(name) || seen.has(name)) continue;
      seen.add(name);
      types.push(backendType(backend, result.binary));
    }
  }
  types.push(genericType(result));
  for (const vendor of VENDORS) types.push(vendorType(vendor, result));
  return types;
}
