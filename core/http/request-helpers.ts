import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';

/** Every list also sends its total across all pages in `X-Total-Count`. */
export function setTotal(reply: FastifyReply, total: number): void {
  void reply.header('x-total-count', String(total));
}

/** A list the reference pages: `{items, total}` in the envelope, the total in the header too. */
export function paged<T>(reply: FastifyReply, items: T[], total: number): { items: T[]; total: number } {
  setTotal(reply, total);
  return { items, total };
}

/** The acting user's id, for operations that only a person (not a key) performs. */
export function userIdOf(request: FastifyRequest): number {
  const p = request.principal;
  if (p?.kind !== 'user') throw new AppError('AUTH_INTERACTIVE_ONLY');
  return p.userId;
}

/** The acting user's session (its token id), so an operation that revokes sessions can keep this one. */
export function sessionIdOf(request: FastifyRequest): string | undefined {
  const p = request.principal;
  return p?.kind === 'user' ? p.sessionId : undefined;
}

/** Aborted when the client closes the connection, so waiting on its behalf can stop. */
export function closedSignal(request: FastifyRequest): AbortSignal {
  const abort = new AbortController();
  request.raw.once('close', () => abort.abort());
  return abort.signal;
}
