import type { FastifyInstance } from 'fastify';
import type { AppEvent } from '../../events/event-bus.ts';
import { requireEventStreamAccept, openEventStream } from '../../http/sse-accept.ts';
import { eventStreamResponse } from '../../http/schemas.ts';

const message = (e: AppEvent) => ({
  id: String(e.id),
  event: e.type,
  data: { type: e.type, title: e.title, body: e.body, fields: e.fields, timestamp: e.timestamp },
});

/**
 * `GET /api/events/stream`: application events as server-sent events. Every event carries an
 * `id`; a client reconnecting with `Last-Event-ID` first gets what it missed from this boot's
 * bounded buffer (`EventBus.since`: after its id, or the whole buffer for `0` and for an id of an
 * earlier boot), then live events. Heartbeat comments keep idle proxies from closing the stream.
 */
export async function eventStreamRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/events/stream',
    {
      config: { access: 'auth' },
      sse: 'only',
      schema: { response: { 200: eventStreamResponse('Application events') } },
      preValidation: requireEventStreamAccept,
    },
    async (request, reply) => {
      const { events } = request.diScope.cradle;
      // Subscribe before replaying, queueing live events, so nothing falls between the two.
      const queued: AppEvent[] = [];
      let live = false;
      const unsubscribe = events.subscribe((e) => {
        if (live) void reply.sse.send(message(e)).catch(() => undefined);
        else queued.push(e);
      });
      reply.sse.onClose(unsubscribe);
      // Headers go out now, not with the first event: clients see the stream open at once.
      openEventStream(reply);
      const resumeFrom = reply.sse.lastEventId;
      // What is queued by now is in the buffer `since` reads: replayed there or already seen.
      const covered = resumeFrom == null ? 0 : queued.length;
      const missed = resumeFrom == null ? [] : events.since(resumeFrom);
      for (const e of missed) await reply.sse.send(message(e));
      // An index loop: events keep queueing while these sends wait.
      for (let i = covered; i < queued.length; i++) await reply.sse.send(message(queued[i]!));
      live = true;
    },
  );
}
