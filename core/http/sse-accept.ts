import type { FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';

/**
 * Event-stream routes refuse clients that explicitly accept something else, with the error
 * envelope (the SSE plugin's own 406 has another shape). No Accept header, `*` types or
 * `text/event-stream` are admitted.
 */
export async function requireEventStreamAccept(request: FastifyRequest): Promise<void> {
  const accept = request.headers.accept;
  if (!accept) return;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  if (types.some((t) => t === 'text/event-stream' || t === 'text/*' || t === '*/*')) return;
  throw new AppError('NOT_ACCEPTABLE');
}
