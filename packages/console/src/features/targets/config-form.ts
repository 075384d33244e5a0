/**
 * From a catalogue type's options to form fields, and from form values back to a target's config.
 * Pure (no DOM, no React): tested with node --test (test/console/config-form.test.ts).
 *
 * Secrets: the API answers every stored secret as SECRET_MASK and lists it in `maskedFields`; a
 * secret sent back masked, empty or absent keeps its stored value. The form therefore starts a
 * stored secret empty ("leave empty to keep") and never sends the mask.
 */
import { GENERIC_RCLONE, type CatalogueOption, type CatalogueType } from './target-catalogue.ts';
import { SECRET_MASK, humanise } from '../../lib/config-text.ts';
export { SECRET_MASK, humanise };

export type FieldKind = 'text' | 'password' | 'boolean' | 'json';

export interface FieldSpec {
  key: string;
  label: string;
  /** The first paragraph of the option's help; `fullHelp` holds all of it. */
  help: string;
  fullHelp: string;
  kind: FieldKind;
  required: boolean;
  advanced: boolean;
  /** The backend's default as text ('' when none): shown as the placeholder, applied when the field stays empty. */
  defaultValue: string;
  examples: string[];
  /** Numbers are sent as numbers when the type's schema says so. */
  numeric: boolean;
}

export type FieldValue = string | boolean;
export type FormValues = Record<string, FieldValue>;

function firstParagraph(help: string): string {
  return (help.split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
}

const BOOLEAN_DEFAULTS = new Set(['true', 'false']);

/**
 * The kind of input one option needs: from the value type a plugin's schema declares; rclone's
 * backends declare none, so there a true/false default marks a switch.
 */
export function fieldKind(typeName: string, option: CatalogueOption): FieldKind {
  if (typeName === GENERIC_RCLONE && option.key === 'options') return 'json';
  if (option.valueType === 'object') return 'json';
  if (option.isPassword) return 'password';
  if (option.valueType === 'boolean') return 'boolean';
  if (option.default !== undefined && BOOLEAN_DEFAULTS.has(option.default.toLowerCase())) return 'boolean';
  return 'text';
}

export function fieldSpec(typeName: string, option: CatalogueOption): FieldSpec {
  return {
    key: option.key,
    label: humanise(option.key),
    help: firstParagraph(option.label),
    fullHelp: option.label.trim(),
    kind: fieldKind(typeName, option),
    required: option.required,
    advanced: option.advanced && !option.required,
    defaultValue: option.default ?? '',
    examples: option.examples ?? [],
    numeric: option.valueType === 'integer' || option.valueType === 'number',
  };
}

/** Every field of a type, required ones first, the catalogue's order kept otherwise. */
export function fieldSpecs(type: Pick<CatalogueType, 'name' | 'options'>): FieldSpec[] {
  const specs = type.options.map((o) => fieldSpec(type.name, o));
  return [...specs.filter((s) => s.required), ...specs.filter((s) => !s.required)];
}

/** The fields shown at once and those behind "Advanced options". */
export function splitAdvanced(specs: readonly FieldSpec[]): { main: FieldSpec[]; advanced: FieldSpec[] } {
  return { main: specs.filter((s) => !s.advanced), advanced: specs.filter((s) => s.advanced) };
}

/**
 * Fields for a stored target whose type the catalogue does not describe (rclone missing, a plugin
 * type without a catalogue route): one text field per config key, masked ones as passwords.
 */
export function specsFromConfig(config: Record<string, unknown>, maskedFields: readonly string[]): FieldSpec[] {
  return Object.keys(config).map((key) =>
    fieldSpec('', {
      key,
      label: '',
      required: false,
      isPassword: maskedFields.includes(key),
      advanced: false,
      ...(typeof config[key] === 'boolean' ? { default: String(config[key]) } : {}),
    }),
  );
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false|t|f|1|0)$/i.test(value)) return /^(true|t|1)$/i.test(value);
  return undefined;
}

/** Form values for a new target (empty: defaults are placeholders) or a stored one (its config, secrets left empty). */
export function initialValues(
  specs: readonly FieldSpec[],
  config: Record<string, unknown> = {},
  maskedFields: readonly string[] = [],
): FormValues {
  const values: FormValues = {};
  for (const spec of specs) {
    const stored = config[spec.key];
    if (spec.kind === 'boolean') {
      values[spec.key] = asBoolean(stored) ?? asBoolean(spec.defaultValue) ?? false;
    } else if (maskedFields.includes(spec.key) || stored === SECRET_MASK) {
      values[spec.key] = '';
    } else if (spec.kind === 'json') {
      values[spec.key] = stored && typeof stored === 'object' ? JSON.stringify(stored, null, 2) : '';
    } else {
      values[spec.key] = stored === undefined || stored === null ? '' : String(stored);
    }
  }
  return values;
}

export type FieldError = 'required' | 'json';

/** What is wrong with the values before the server is asked; a stored secret left empty is kept, so not missing. */
export function validateValues(
  specs: readonly FieldSpec[],
  values: FormValues,
  maskedFields: readonly string[] = [],
): Record<string, FieldError> {
  const errors: Record<string, FieldError> = {};
  for (const spec of specs) {
    const value = values[spec.key];
    if (spec.kind === 'boolean') continue;
    const text = typeof value === 'string' ? value.trim() : '';
    if (spec.required && text === '' && !maskedFields.includes(spec.key)) errors[spec.key] = 'required';
    else if (spec.kind === 'json' && text !== '' && parseJsonObject(text) === undefined) errors[spec.key] = 'json';
  }
  return errors;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The config to send: empty fields left out (the backend's default applies, a stored secret is
 * kept), text trimmed except secrets, a switch only when it differs from the default or was stored.
 */
export function toConfig(
  specs: readonly FieldSpec[],
  values: FormValues,
  stored: Record<string, unknown> = {},
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const spec of specs) {
    const value = values[spec.key];
    if (spec.kind === 'boolean') {
      const on = value === true;
      if (spec.key in stored || on !== (asBoolean(spec.defaultValue) ?? false)) config[spec.key] = on;
      continue;
    }
    if (typeof value !== 'string') continue;
    const text = spec.kind === 'password' ? value : value.trim();
    if (text === '' || text === SECRET_MASK) continue;
    if (spec.kind === 'json') {
      const parsed = parseJsonObject(text);
      if (parsed) config[spec.key] = parsed;
      continue;
    }
    config[spec.key] = spec.numeric && Number.isFinite(Number(text)) ? Number(text) : text;
  }
  return config;
}

/** A validation error of the API (`details[].path` like `config/basePath`) as the field it names, when it names one. */
export function fieldOfIssuePath(path: string): string | undefined {
  const m = /^(?:body\/)?config\/([^/]+)/.exec(path);
  return m?.[1];
}

/** The API's `details` of a refused config (`[{path, message}]`) as messages by form field; others are left to the error alert. */
export function fieldErrorsOf(details: unknown): Record<string, string> {
  const errors: Record<string, string> = {};
  if (!Array.isArray(details)) return errors;
  for (const d of details as unknown[]) {
    const { path, message } = (d ?? {}) as { path?: unknown; message?: unknown };
    if (typeof path !== 'string' || typeof message !== 'string') continue;
    const field = fieldOfIssuePath(path);
    if (field) errors[field] = errors[field] ? `${errors[field]}; ${message}` : message;
  }
  return errors;
}

const GIB = 1024 ** 3;
/** Quota in the form (GiB, decimals allowed) ↔ the API's whole bytes; 0 = no quota. */
export const quotaToGib = (bytes: number): number => Math.round((bytes / GIB) * 1000) / 1000;
export const gibToQuota = (gib: number): number => (Number.isFinite(gib) && gib > 0 ? Math.round(gib * GIB) : 0);
