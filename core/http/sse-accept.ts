import type { FastifyReply, FastifyRequest } from 'fastify';
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

/**
 * Commits the response as an event stream now: headers plus an opening comment (as the
 * reference does), because Node holds `writeHead` back until the first body byte and a client
 * would otherwise see nothing until the first event or heartbeat.
 */
export function openEventStream(reply: FastifyReply): void {
  reply.sse.keepAlive();
  reply.sse.sendHeaders();
  reply.raw.write(`: connected ${Math.floor(Date.now() / 1000)}\n\n`);
}
