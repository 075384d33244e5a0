import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.ts';

/**
 * Event-stream routes refuse clients that explicitly accept something else, with the error
 * envelope (the SSE plugin's own 406 has another shape, which the routes' error schema would not
 * serialise). No Accept header, `*` types or `text/event-stream` are admitted, unless refused
 * with `q=0`: read as the plugin reads them, so its own 406 is never reached.
 */
export async function requireEventStreamAccept(request: FastifyRequest): Promise<void> {
  const accept = request.headers.accept;
  if (!accept) return;
  // The most specific matching entry decides (`text/event-stream;q=0, */*` refuses), as there.
  let best: { rank: number; refused: boolean } | undefined;
  for (const entry of accept.split(',')) {
    const [type = '', ...params] = entry.split(';').map((p) => p.trim().toLowerCase());
    const rank = ['*/*', 'text/*', 'text/event-stream'].indexOf(type);
    if (rank < 0 || (best && best.rank >= rank)) continue;
    best = { rank, refused: params.some((p) => /^q=0(\.0*)?$/.test(p)) };
  }
  if (!best || best.refused) throw new AppError('NOT_ACCEPTABLE');
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
