import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import fp from 'fastify-plugin';
import { AppError } from './app-error.ts';

const DIGITS = /^[1-9][0-9]{0,15}$/;
const MAX_DEPTH = 64;

/** NUL, or a lone UTF-16 surrogate (`"\ud800"` is valid JSON but no valid text: it cannot be encoded in UTF-8 or a URL). */
function suspect(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

function containsSuspect(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return suspect(value);
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsSuspect(v, depth + 1));
  return Object.entries(value).some(([k, v]) => suspect(k) || containsSuspect(v, depth + 1));
}

/** Integer path parameters of the route's schema (e.g. `id`). */
function integerParams(request: FastifyRequest): string[] {
  const params = request.routeOptions.schema?.params as { properties?: Record<string, { type?: string }> } | undefined;
  return Object.entries(params?.properties ?? {})
    .filter(([, s]) => s.type === 'integer')
    .map(([k]) => k);
}

/**
 * Input rules every route shares, checked before schema validation:
 * - no NUL character anywhere in the body, query or path (databases and C libraries end
 *   strings there; it is never legitimate in this API), and no unpaired surrogate (not text:
 *   UTF-8, URLs and databases cannot carry it);
 * - integer path parameters are plain decimal digits: `1e3`, `0x10`, ` 1` and `1.0` are
 *   400 INVALID_ID, although a lenient number parser would accept them.
 */
export const inputGuard = fp(
  async function inputGuard(app: FastifyInstance) {
    app.addHook('preValidation', async function rejectSuspectInput(request: FastifyRequest) {
      for (const name of integerParams(request)) {
        const raw = (request.params as Record<string, unknown>)[name];
        if (typeof raw !== 'string' || !DIGITS.test(raw)) {
          throw new AppError('INVALID_ID', {
            details: [{ path: `params/${name}`, message: 'must be a positive integer' }],
          });
        }
      }
      // A streamed body (an agent's artifact upload) is bytes, not fields.
      const body = request.body instanceof Readable ? undefined : request.body;
      if (containsSuspect(request.query) || containsSuspect(request.params) || containsSuspect(body)) {
        throw new AppError('INVALID_INPUT', {
          details: [{ path: 'request', message: 'must not contain NUL characters or unpaired surrogates' }],
        });
      }
    });
  },
  { name: 'backplane-input-guard' },
);
