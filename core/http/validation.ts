import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';

const BASE: Options = { useDefaults: true, removeAdditional: true, allErrors: false, strict: false };

/**
 * Two validators: path and query values arrive as strings and are coerced to the schema's
 * types; JSON bodies are checked as sent, so `{"disabled": "true"}` or `{"password": 12345678}`
 * is a 400, not silently converted.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<FastifySchema> {
  const coercing = new Ajv({ ...BASE, coerceTypes: 'array' });
  const exact = new Ajv({ ...BASE, coerceTypes: false });
  for (const ajv of [coercing, exact]) (addFormats as unknown as (a: Ajv) => void)(ajv);
  return ({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema as object) as ReturnType<FastifySchemaCompiler<FastifySchema>>;
}
