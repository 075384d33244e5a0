import { Ajv, type ValidateFunction } from 'ajv';
import type { StorageType, OptionDoc, ProviderManifest } from '@backplane/plugin-api';
import type { ErrorCode } from '../http/error-catalogue.ts';
import { AppError } from '../http/app-error.ts';

export const SECRET_MASK = '********';

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
const validators = new WeakMap<ProviderManifest, ValidateFunction>();

/** Validates a full (merged) config against the provider's JSON Schema; 400 with per-field details. */
export function validateConfig(type: ProviderManifest, config: Record<string, unknown>, code: ErrorCode = 'STORAGE_TARGET_INVALID_CONFIG'): void {
  let validate = validators.get(type);
  if (!validate) {
    validate = ajv.compile(type.configSchema);
    validators.set(type, validate);
  }
  if (!validate(config)) {
    const details = (validate.errors ?? []).map((e) => ({
      path: `config${e.instancePath}${e.keyword === 'required' ? `/${String((e.params as { missingProperty?: string }).missingProperty)}` : ''}`,
      message: e.message ?? 'invalid',
    }));
    throw new AppError(code, { details });
  }
}

/** Splits a config into its public part and its secret fields. */
export function splitSecrets(type: StorageType, config: Record<string, unknown>): { plain: Record<string, unknown>; secrets: Record<string, unknown> } {
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
export function mergeSecrets(type: StorageType, incoming: Record<string, unknown>, storedSecrets: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...incoming };
  for (const field of type.secretFields) {
    const value = incoming[field];
    if ((value === undefined || value === '' || value === SECRET_MASK) && storedSecrets[field] !== undefined) merged[field] = storedSecrets[field];
  }
  return merged;
}

/** The config as clients see it: every non-empty secret replaced by the mask. */
export function maskConfig(type: StorageType | undefined, plain: Record<string, unknown>, secretKeys: string[]): { config: Record<string, unknown>; maskedFields: string[] } {
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
export function optionDocs(type: StorageType): OptionDoc[] {
  if (type.options) return type.options;
  const schema = type.configSchema as { properties?: Record<string, { description?: string; default?: unknown; examples?: unknown[] }>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => ({
    name,
    help: prop.description ?? '',
    required: schema.required?.includes(name) ?? false,
    secret: type.secretFields.includes(name),
    ...(prop.default === undefined ? {} : { default: String(prop.default) }),
  }));
}
