import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';

/** Lists return arrays; the total across all pages travels in `X-Total-Count`. */
export function setTotal(reply: FastifyReply, total: number): void {
  void reply.header('x-total-count', String(total));
}

/** The acting user's id, for operations that only a person (not a key) performs. */
export function userIdOf(request: FastifyRequest): number {
  const p = request.principal;
  if (p?.kind !== 'user') throw new AppError('AUTH_INTERACTIVE_ONLY');
  return p.userId;
}

/** Aborted when the client closes the connection, so waiting on its behalf can stop. */
export function closedSignal(request: FastifyRequest): AbortSignal {
  const abort = new AbortController();
  request.raw.once('close', () => abort.abort());
  return abort.signal;
}
