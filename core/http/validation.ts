import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

const BASE: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };
const MAX_DEPTH = 64;

/**
 * The path of the first number no column can hold: not finite (`1e309` parses to Infinity, in a
 * query string and in JSON alike, and Ajv's `integer` accepts it) or an integer beyond 2^53,
 * which JavaScript has already rounded. Such a value reached the database as SQL text before.
 */
function unsafeNumberAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'number')
    return !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)) ? path : undefined;
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return undefined;
  for (const [key, v] of Object.entries(value)) {
    const found = unsafeNumberAt(v, `${path}/${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function withSafeNumbers(validate: ValidateFunction): ValidateFunction {
  const checked = ((data: unknown) => {
    if (!validate(data)) {
      checked.errors = validate.errors;
      return false;
    }
    const at = unsafeNumberAt(data, '');
    if (at === undefined) {
      checked.errors = null;
      return true;
    }
    const error: ErrorObject = {
      instancePath: at,
      schemaPath: '#',
      keyword: 'maximum',
      params: {},
      message: 'must be a finite number within ±2^53',
    };
    checked.errors = [error];
    return false;
  }) as ValidateFunction;
  return checked;
}

/**
 * Two validators: path and query values arrive as strings and are coerced to the schema's
 * types; JSON bodies are checked as sent, so `{"disabled": "true"}` or `{"password": 12345678}`
 * is a 400, not silently converted. Both refuse numbers no column can hold.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const coercing = new Ajv({ ...BASE, coerceTypes: 'array' });
  const exact = new Ajv({ ...BASE, coerceTypes: false });
  for (const ajv of [coercing, exact]) (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ({ schema, httpPart }) =>
    withSafeNumbers((httpPart === 'body' ? exact : coercing).compile(schema as object)) as ReturnType<
      FastifySchemaCompiler<FastifySchema>
    >;
}
