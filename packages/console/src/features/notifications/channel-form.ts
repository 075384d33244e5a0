/**
 * From a channel type of the catalogue (GET /api/notifications/types) to form inputs, and from the
 * form's values back to a channel's `config`. Pure (no DOM, no React): test/console/channel-form.test.ts.
 *
 * The catalogue gives each field twice: `options` (key, help text in `label`, required, isPassword,
 * default, advanced) and the type's JSON Schema (`configSchema`: value types, enums, ranges). The
 * input kind comes from the schema, the rest from the option.
 *
 * Secrets: the API answers a stored secret as SECRET_MASK and names it in `maskedFields`; a secret
 * sent back masked, empty or absent keeps its stored value. The form starts a stored secret empty
 * ("leave empty to keep") and leaves it out of the config unless the user typed a new one.
 */

import { SECRET_MASK, humanise } from '../../lib/config-text.ts';
export { SECRET_MASK, humanise };

/** What this module reads of a catalogue option (the route's `options[]` items). */
export interface CatalogueOption {
  key: string;
  label: string;
  required: boolean;
  isPassword: boolean;
  default?: string;
  advanced: boolean;
}

/** What this module reads of a catalogue type. */
export interface CatalogueType {
  type: string;
  configSchema: Record<string, unknown>;
  secretFields: string[];
  options: CatalogueOption[];
}

export type InputKind = 'text' | 'password' | 'integer' | 'number' | 'boolean' | 'select' | 'json';

export interface InputSpec {
  key: string;
  label: string;
  help: string;
  kind: InputKind;
  required: boolean;
  secret: boolean;
  advanced: boolean;
  /** The type's default as text ('' when none): the placeholder; the server applies it when the field is left out. */
  defaultValue: string;
  choices: string[];
  min?: number;
  max?: number;
  /** For json inputs: what the value must parse to. */
  jsonShape?: 'object' | 'array';
}

export type FieldValue = string | number | boolean;
export type FormValues = Record<string, FieldValue>;
export type FieldError = 'required' | 'integer' | 'number' | 'range' | 'json';

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: PropertySchema[];
  oneOf?: PropertySchema[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

function propertyOf(type: Pick<CatalogueType, 'configSchema'>, key: string): PropertySchema {
  const props = (type.configSchema as { properties?: Record<string, PropertySchema> }).properties;
  return props?.[key] ?? {};
}

/** The kind a schema asks for; of alternatives (anyOf/oneOf) the first the form can edit, as the type lists it first. */
function kindOfSchema(prop: PropertySchema): { kind: InputKind; prop: PropertySchema } | undefined {
  if (Array.isArray(prop.enum) && prop.enum.every((v) => typeof v === 'string')) return { kind: 'select', prop };
  const alternatives = prop.anyOf ?? prop.oneOf;
  if (alternatives) {
    for (const alt of alternatives) {
      const found = kindOfSchema(alt);
      if (found) return found;
    }
    return undefined;
  }
  const t = Array.isArray(prop.type) ? prop.type.find((x) => x !== 'null') : prop.type;
  if (t === 'string') return { kind: 'text', prop };
  if (t === 'integer') return { kind: 'integer', prop };
  if (t === 'number') return { kind: 'number', prop };
  if (t === 'boolean') return { kind: 'boolean', prop };
  if (t === 'object' || t === 'array') return { kind: 'json', prop };
  return undefined;
}

export function inputSpec(type: CatalogueType, option: CatalogueOption): InputSpec {
  const prop = propertyOf(type, option.key);
  const found = kindOfSchema(prop);
  const secret = option.isPassword || type.secretFields.includes(option.key);
  const kind: InputKind = secret ? 'password' : (found?.kind ?? 'text');
  const schema = found?.prop ?? prop;
  const fallbackDefault = prop.default === undefined || typeof prop.default === 'object' ? '' : String(prop.default);
  const t = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  return {
    key: option.key,
    label: humanise(option.key),
    help: option.label.trim(),
    kind,
    required: option.required,
    secret,
    advanced: option.advanced && !option.required,
    defaultValue: option.default ?? fallbackDefault,
    choices: kind === 'select' ? (schema.enum as string[]) : [],
    ...(typeof schema.minimum === 'number' ? { min: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { max: schema.maximum } : {}),
    ...(kind === 'json' ? { jsonShape: t === 'array' ? ('array' as const) : ('object' as const) } : {}),
  };
}

/** Every field of a type, required ones first, the catalogue's order kept otherwise. */
export function inputSpecs(type: CatalogueType): InputSpec[] {
  const specs = type.options.map((o) => inputSpec(type, o));
  return [...specs.filter((s) => s.required), ...specs.filter((s) => !s.required)];
}

/**
 * Inputs for a stored channel whose type is not installed any more: one per config key (masked
 * ones as secrets), so nothing it holds is dropped silently by an edit.
 */
export function specsFromConfig(config: Record<string, unknown>, maskedFields: readonly string[]): InputSpec[] {
  return Object.entries(config).map(([key, value]) => {
    const secret = maskedFields.includes(key);
    const kind: InputKind = secret
      ? 'password'
      : typeof value === 'boolean'
        ? 'boolean'
        : typeof value === 'number'
          ? 'number'
          : value !== null && typeof value === 'object'
            ? 'json'
            : 'text';
    return {
      key,
      label: humanise(key),
      help: '',
      kind,
      required: false,
      secret,
      advanced: false,
      defaultValue: '',
      choices: [],
      ...(kind === 'json' ? { jsonShape: Array.isArray(value) ? ('array' as const) : ('object' as const) } : {}),
    };
  });
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  return undefined;
}

/** Form values of a new channel (defaults for switches and lists, the rest empty) or of a stored one (secrets left empty). */
export function initialValues(
  specs: readonly InputSpec[],
  config: Record<string, unknown> = {},
  maskedFields: readonly string[] = [],
): FormValues {
  const values: FormValues = {};
  for (const spec of specs) {
    const stored = config[spec.key];
    if (spec.kind === 'boolean') values[spec.key] = asBoolean(stored) ?? asBoolean(spec.defaultValue) ?? false;
    else if (spec.secret && (maskedFields.includes(spec.key) || stored === SECRET_MASK)) values[spec.key] = '';
    else if (spec.kind === 'json')
      values[spec.key] =
        stored !== undefined && stored !== null && typeof stored === 'object' ? JSON.stringify(stored, null, 2) : '';
    else if (spec.kind === 'select')
      values[spec.key] = stored === undefined || stored === null || stored === '' ? spec.defaultValue : String(stored);
    else
      values[spec.key] =
        stored === undefined || stored === null ? '' : typeof stored === 'number' ? stored : String(stored);
  }
  return values;
}

function coerce(spec: InputSpec, raw: FieldValue): { value?: unknown; error?: FieldError } {
  if (spec.kind === 'boolean') return { value: raw === true || raw === 'true' };
  const text = typeof raw === 'string' ? (spec.secret ? raw : raw.trim()) : String(raw);
  if (text.trim() === '') return {};
  if (spec.kind === 'integer' || spec.kind === 'number') {
    const n = Number(text);
    if (!Number.isFinite(n)) return { error: 'number' };
    if (spec.kind === 'integer' && !Number.isInteger(n)) return { error: 'integer' };
    if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) return { error: 'range' };
    return { value: n };
  }
  if (spec.kind === 'json') {
    try {
      const parsed: unknown = JSON.parse(text);
      const isArray = Array.isArray(parsed);
      const ok = parsed !== null && typeof parsed === 'object' && (spec.jsonShape === 'array' ? isArray : !isArray);
      return ok ? { value: parsed } : { error: 'json' };
    } catch {
      return { error: 'json' };
    }
  }
  return { value: text };
}

/**
 * The channel's `config` from the form, and what is wrong before the server is asked. An empty
 * field is left out (the type's default applies; optional URL fields refuse ''); a stored secret
 * left empty is left out, which keeps it.
 */
export function configFromValues(
  specs: readonly InputSpec[],
  values: FormValues,
  maskedFields: readonly string[] = [],
): { config: Record<string, unknown>; errors: Record<string, FieldError> } {
  const config: Record<string, unknown> = {};
  const errors: Record<string, FieldError> = {};
  for (const spec of specs) {
    const { value, error } = coerce(spec, values[spec.key] ?? '');
    if (error) errors[spec.key] = error;
    else if (value !== undefined) config[spec.key] = value;
    else if (spec.required && !(spec.secret && maskedFields.includes(spec.key))) errors[spec.key] = 'required';
  }
  return { config, errors };
}
