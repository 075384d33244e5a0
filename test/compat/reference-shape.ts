import assert from 'node:assert/strict';
import { Ajv, type ErrorObject } from 'ajv';
import { Type, type TSchema, type TProperties } from 'typebox';

/**
 * The BackupX compatibility suite describes what BackupX's web console and scripts read
 * (its web/src/types and services, its Go DTOs) as TypeBox schemas and checks Backplane's
 * real responses against them. Extra Backplane fields are allowed (objects stay open);
 * a missing reference field, a wrong type or a wrong container fails with the JSON path.
 */
const ajv = new Ajv({ allErrors: true, strict: false });

/** An object the reference reads: every listed field required, extra fields allowed. */
export const Ref = (properties: TProperties) => Type.Object(properties, { additionalProperties: true });

/** A field the reference marks optional (`field?:` in its types): when present it has this type. */
export const Opt = <T extends TSchema>(schema: T) => Type.Optional(schema);

/** A field the reference types as `T | null` (Go pointers, omitempty-less nullable columns). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** The reference's timestamp: an RFC 3339 string. */
export const Time = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}' });

/** `{items, total}`: how BackupX pages its long lists. */
export const Page = <T extends TSchema>(item: T) =>
  Ref({ items: Type.Array(item), total: Type.Integer({ minimum: 0 }) });

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map(
      (e) =>
        `${e.instancePath || '/'} ${e.message}${e.params && 'missingProperty' in e.params ? ` (${String(e.params.missingProperty)})` : ''}`,
    )
    .join('\n');
}

/** Asserts `value` has the reference's shape; the message names every offending path. */
export function expectShape(value: unknown, schema: TSchema, what = 'response'): void {
  const validate = ajv.compile(schema);
  if (!validate(value))
    assert.fail(
      `${what} does not match BackupX's shape:\n${describe(validate.errors)}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`,
    );
}

/** Asserts the envelope BackupX's client unwraps, then the shape of `data`. */
export function expectEnvelope(res: { status: number; json: any }, data: TSchema, what?: string): any {
  assert.ok(
    res.status >= 200 && res.status < 300,
    `${what ?? 'request'} answered ${res.status}: ${JSON.stringify(res.json)}`,
  );
  expectShape(res.json, Ref({ code: Type.Union([Type.String(), Type.Number()]), message: Type.String() }), 'envelope');
  assert.ok('data' in res.json, 'the envelope carries data');
  expectShape(res.json.data, data, what);
  return res.json.data;
}
