import { Type, type TSchema } from 'typebox';

/** `:id` path parameters: positive integers; anything else is 400 INVALID_ID (see the error handler). */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

/** Shared list paging: `limit`/`offset`; the total goes in `X-Total-Count`. */
export function pageQuery(defaultLimit: number, maxLimit: number) {
  return {
    limit: Type.Integer({ minimum: 1, maximum: maxLimit, default: defaultLimit }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  };
}

/**
 * Paging for a list the reference answers whole (its console loads it in one request): every row
 * unless `limit` is given. For lists that stay small (users, API keys); the total is in `X-Total-Count`.
 */
export function wholeListQuery(maxLimit: number) {
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit })),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: 0 }),
  };
}

/** The row limit for such a list's query: the one asked for, else all rows (SQL takes an offset only with a limit). */
export function rowLimit(limit: number | undefined): number {
  return limit ?? Number.MAX_SAFE_INTEGER;
}

/** `{items, total}`: the reference's shape for the lists it pages (audit logs, records…); contract §lists. */
export function pageOf<T extends TSchema>(item: T) {
  return Type.Object({ items: Type.Array(item), total: Type.Integer({ minimum: 0 }) });
}

/** The success envelope as a response schema, so responses are serialised (and filtered) by schema. */
export function envelopeOf<T extends TSchema>(data: T) {
  return Type.Object({ code: Type.Literal('OK'), message: Type.Literal('success'), data });
}

export const Timestamp = Type.String({ format: 'date-time' });
export const NullableTimestamp = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/**
 * A response that is not the JSON envelope (a file, a CSV, a script, an event stream, a page),
 * described by media type for the OpenAPI description. Fastify serialises none of these (strings,
 * buffers and streams go out as they are; a content type without a schema here falls back to
 * plain JSON), so declaring it changes nothing that is sent.
 */
export function rawResponse(description: string, mediaTypes: string[], format?: 'binary') {
  const schema = format ? { type: 'string', format } : { type: 'string' };
  return { description, content: Object.fromEntries(mediaTypes.map((t) => [t, { schema }])) };
}

/** An event stream (`text/event-stream`): events as `id`/`event`/`data` lines, heartbeat comments between. */
export const eventStreamResponse = (what: string) =>
  rawResponse(`${what}, as server-sent events`, ['text/event-stream']);
