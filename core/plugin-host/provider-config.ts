import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { SECRET_MASK, type OptionDoc, type ProviderManifest, type ConfigIssue } from '@backplane/plugin-api';
import type { ErrorCode } from '../http/error-catalogue.ts';
import { AppError } from '../http/app-error.ts';

/**
 * A provider type's settings, whatever its kind (storage, notifier, database driver): validation
 * against its JSON Schema with errors that name the field, and its secret fields kept apart.
 */
// The mask and the issue shape are the plugin kit's, so types that declare config aliases share them.
export { SECRET_MASK, type ConfigIssue };

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const validators = new WeakMap<ProviderManifest, ValidateFunction>();

/** One Ajv error as a detail that names the field: `config/<field>` and a message saying what is wrong with it. */
function issueOf(e: ErrorObject): ConfigIssue {
  const params = e.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
  if (e.keyword === 'required')
    return { path: `config${e.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
  if (e.keyword === 'additionalProperties')
    return {
      path: `config${e.instancePath}/${String(params.additionalProperty)}`,
      message: 'is not a setting of this type',
    };
  const message =
    e.keyword === 'enum'
      ? `must be one of ${(params.allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`
      : (e.message ?? 'is invalid');
  return { path: `config${e.instancePath}`, message };
}

/** The error for config issues: the message names every offending field, `details` lists them. */
export function configError(
  typeName: string,
  details: ConfigIssue[],
  code: ErrorCode = 'STORAGE_TARGET_INVALID_CONFIG',
): AppError {
  const list = details.map((d) => `${d.path} ${d.message}`).join('; ');
  return new AppError(code, { message: `Invalid settings for type "${typeName}": ${list}.`, details });
}

/**
 * The issues of a full (merged) config against the provider's JSON Schema, each naming its
 * field. Ajv's summary errors of `if`/`anyOf`/`oneOf` (they say "must match a schema", at the
 * object) are left out when a field-level error explains them.
 */
export function configIssues(type: ProviderManifest, config: Record<string, unknown>): ConfigIssue[] {
  let validate = validators.get(type);
  if (!validate) {
    validate = ajv.compile(type.configSchema);
    validators.set(type, validate);
  }
  if (validate(config)) return [];
  const errors = validate.errors ?? [];
  const specific = errors.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
  return (specific.length > 0 ? specific : errors).map(issueOf);
}

/** Validates a full (merged) config; 400 naming each offending field. */
export function validateConfig(
  type: ProviderManifest,
  config: Record<string, unknown>,
  code: ErrorCode = 'STORAGE_TARGET_INVALID_CONFIG',
): void {
  const issues = configIssues(type, config);
  if (issues.length > 0) throw configError(type.type, issues, code);
}

const SUMMARY_KEYWORDS = new Set(['if', 'anyOf', 'oneOf']);

/** Splits a config into its public part and its secret fields. */
export function splitSecrets(
  type: ProviderManifest,
  config: Record<string, unknown>,
): { plain: Record<string, unknown>; secrets: Record<string, unknown> } {
  const plain: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (type.secretFields.includes(key)) secrets[key] = value;
    else plain[key] = value;
  }
  return { plain, secrets };
}

/**
 * Applies an update's config to the stored one: a secret sent back as the mask, or empty,
 * keeps its stored value (clients only ever saw the mask).
 */
export function mergeSecrets(
  type: ProviderManifest,
  incoming: Record<string, unknown>,
  storedSecrets: Record<string, unknown>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...incoming };
  for (const field of type.secretFields) {
    const value = incoming[field];
    if ((value === undefined || value === '' || value === SECRET_MASK) && storedSecrets[field] !== undefined)
      merged[field] = storedSecrets[field];
  }
  return merged;
}

/** The config as clients see it: every non-empty secret replaced by the mask. */
export function maskConfig(
  type: ProviderManifest | undefined,
  plain: Record<string, unknown>,
  secretKeys: string[],
): { config: Record<string, unknown>; maskedFields: string[] } {
  const config: Record<string, unknown> = { ...plain };
  const maskedFields: string[] = [];
  for (const key of secretKeys) {
    config[key] = SECRET_MASK;
    maskedFields.push(key);
  }
  // A type that is no longer installed still masks whatever it once declared secret.
  for (const field of type?.secretFields ?? []) if (!(field in config)) config[field] = '';
  return { config, maskedFields: maskedFields.sort() };
}

/** Field documentation: the type's own, or derived from its JSON Schema. */
export function optionDocs(type: ProviderManifest & { options?: OptionDoc[] }): OptionDoc[] {
  if (type.options) return type.options;
  const schema = type.configSchema as {
    properties?: Record<string, { description?: string; default?: unknown; examples?: unknown[] }>;
    required?: string[];
  };
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => ({
    name,
    help: prop.description ?? '',
    required: schema.required?.includes(name) ?? false,
    secret: type.secretFields.includes(name),
    ...(prop.default === undefined ? {} : { default: String(prop.default) }),
  }));
}
