import type { FastifyReply } from 'fastify';
import { TERMINAL_STATUSES, type RecordStatus } from '../../db/entities/backup-record.ts';
import { finalEvent, type LogEvent, type RecordLogHub } from '../../backup/record-log.ts';
import { openEventStream } from '../../http/sse-accept.ts';
import { reportedStatus } from './reported-status.ts';

// `status` as a record shows it (a queued run shows as running, reported-status.ts).
const sseMessage = (e: LogEvent) => ({
  id: String(e.sequence),
  event: 'log',
  data: { ...e, status: reportedStatus(e.status) },
});

/**
 * A run's log as server-sent events (backup, restore and verification records alike): the
 * stored lines after `Last-Event-ID`, then live lines and progress, then a final
 * `{completed: true, status}` event; then the server closes. The route checks that the record
 * exists before calling this, so a bad id is answered in JSON.
 */
export async function streamRecordLog(
  reply: FastifyReply,
  hub: RecordLogHub,
  id: number,
  status: () => Promise<RecordStatus | undefined>,
): Promise<void> {
  const last = Number(reply.sse.lastEventId ?? '');
  let sent = Number.isSafeInteger(last) && last > 0 ? last : 0;
  // Subscribe first and queue, so nothing falls between the replay and the live tail.
  const queued: LogEvent[] = [];
  let live = false;
  let finished: () => void = () => undefined;
  const ended = new Promise<void>((res) => (finished = res));
  let completedSent = false;
  const forward = async (e: LogEvent): Promise<void> => {
    if (completedSent) return;
    if (e.completed) completedSent = true;
    if (e.level !== 'progress' && !e.completed && e.sequence <= sent) return;
    if (e.level !== 'progress') sent = Math.max(sent, e.sequence);
    await reply.sse.send(sseMessage(e)).catch(() => undefined);
    if (e.completed) finished();
  };
  const unsubscribe = hub.subscribe(id, (e) => {
    if (live) void forward(e);
    else queued.push(e);
  });
  reply.sse.onClose(() => {
    unsubscribe();
    finished();
  });
  openEventStream(reply);
  const initial = (await status()) ?? 'failed';
  for (const e of await hub.stored(id, sent, initial)) await forward(e);
  for (const e of queued) await forward(e);
  live = true;
  // Not being written (any more): when terminal, the stored lines were everything.
  if (!hub.isLive(id)) {
    const now = (await status()) ?? initial;
    if ((TERMINAL_STATUSES as readonly string[]).includes(now)) {
      for (const e of await hub.stored(id, sent, now)) await forward(e);
      await forward(finalEvent(id, sent, now));
    }
  }
  await ended;
  unsubscribe();
  reply.sse.close();
}
