import type { NotificationMessage, NotificationSeverity } from '@backplane/plugin-api';
import type { NotificationEvent } from '../db/entities/notification.ts';
import type { AlertFields } from './alert.ts';

/** The key a receiver deduplicates with: one per event and channel, the same on every attempt. */
export function idempotencyKey(eventId: number, channelId: number): string {
  return `backplane-${eventId}-${channelId}`;
}

/** The absolute link of an event, when the master knows the URL it is reached at. */
export function linkOf(linkPath: string, externalUrl: string | undefined): string | undefined {
  return linkPath && externalUrl ? `${externalUrl}${linkPath}` : undefined;
}

/** The message one channel receives for one stored event. */
export function messageOf(
  event: NotificationEvent,
  delivery: { channelId: number; coalescedCount: number },
  externalUrl: string | undefined,
): NotificationMessage {
  const fields = JSON.parse(event.fields) as AlertFields;
  const folded =
    delivery.coalescedCount > 0
      ? `\n\n${delivery.coalescedCount} more event(s) like this one followed within the coalescing window.`
      : '';
  const link = linkOf(event.linkPath, externalUrl);
  return {
    event: event.type,
    severity: event.severity as NotificationSeverity,
    title: event.title,
    body: `${event.body}${folded}`,
    fields: {
      ...fields,
      eventType: event.type,
      timestamp: event.occurredAt.toISOString(),
      ...(delivery.coalescedCount > 0 ? { coalesced: delivery.coalescedCount } : {}),
    },
    timestamp: event.occurredAt.toISOString(),
    ...(link ? { link } : {}),
    idempotencyKey: idempotencyKey(event.id, delivery.channelId),
  };
}

/** The title and body of one digest: every held event since the last one, oldest first. */
export function digestText(
  events: NotificationEvent[],
  externalUrl: string | undefined,
): { title: string; body: string; failures: number } {
  const failures = events.filter((e) => e.severity === 'error').length;
  const lines = events.map((e) => {
    const link = linkOf(e.linkPath, externalUrl);
    return `- ${e.occurredAt.toISOString()} [${e.type}] ${e.title}${link ? ` (${link})` : ''}`;
  });
  return {
    title: `Backplane daily digest: ${events.length} event(s), ${failures} failure(s)`,
    body: lines.join('\n'),
    failures,
  };
}
