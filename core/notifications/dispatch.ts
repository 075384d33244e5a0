import type { EntityManager } from '@mikro-orm/core';
import {
  NotificationChannelEntity,
  NotificationDeliveryEntity,
  NotificationEventEntity,
  type NotificationChannel,
  type NotificationEvent,
} from '../db/entities/notification.ts';
import { subscribes } from './subscription.ts';
import { digestText } from './message.ts';

export interface DispatchOptions {
  /** Same event type and subject to one channel within this window: folded into the first (0 = never). */
  coalesceMs: number;
  /** The `backup_notification_enabled` setting: off, backup results go to nobody. */
  backupNotifications: boolean;
  now: Date;
}

/** A channel's `eventTypes` column, as a list. */
export function eventTypesOf(channel: NotificationChannel): string[] {
  const parsed: unknown = JSON.parse(channel.eventTypes || '[]');
  return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * Fans undispatched outbox events out to the channels that subscribe, one delivery each. Each
 * event's deliveries and its `dispatchedAt` are flushed together (one transaction), and a
 * delivery is unique per event and channel, so a crash mid-way neither loses nor doubles one.
 * Returns how many events were dispatched.
 */
export async function dispatchPending(em: EntityManager, options: DispatchOptions): Promise<number> {
  const events = await em.find(NotificationEventEntity, { dispatchedAt: null }, { orderBy: { id: 'asc' }, limit: 200 });
  if (events.length === 0) return 0;
  const channels = await em.find(NotificationChannelEntity, { enabled: true });
  for (const event of events) {
    event.dispatchedAt = options.now;
    const muted = event.type.startsWith('backup_') && !options.backupNotifications;
    for (const channel of muted ? [] : channels) {
      if (!subscribes({ ...channel, eventTypes: eventTypesOf(channel) }, event.type)) continue;
      await addDelivery(em, event, channel, options);
    }
    await em.flush();
  }
  return events.length;
}

async function addDelivery(
  em: EntityManager,
  event: NotificationEvent,
  channel: NotificationChannel,
  options: DispatchOptions,
): Promise<void> {
  const base = {
    eventId: event.id,
    channelId: channel.id,
    eventType: event.type,
    subject: event.subject,
    attempts: 0,
    lastError: '',
    coalescedCount: 0,
    mergedInto: null,
    deliveredAt: null,
  };
  if (channel.digest === 'daily') {
    em.create(NotificationDeliveryEntity, { ...base, status: 'held', nextAttemptAt: null });
    return;
  }
  if (options.coalesceMs > 0 && event.subject) {
    // Folded only into one that was or will be delivered: never into a delivery given up on.
    const earlier = await em.findOne(
      NotificationDeliveryEntity,
      {
        channelId: channel.id,
        eventType: event.type,
        subject: event.subject,
        status: { $in: ['pending', 'sending', 'delivered'] },
        createdAt: { $gte: new Date(options.now.getTime() - options.coalesceMs) },
      },
      { orderBy: { id: 'desc' } },
    );
    if (earlier) {
      earlier.coalescedCount += 1;
      em.create(NotificationDeliveryEntity, {
        ...base,
        status: 'coalesced',
        nextAttemptAt: null,
        mergedInto: earlier.id,
      });
      return;
    }
  }
  em.create(NotificationDeliveryEntity, { ...base, status: 'pending', nextAttemptAt: options.now });
}

/** `YYYY-MM-DD` and `HH:MM` of an instant in a time zone. */
function localParts(at: Date, timeZone: string): { date: string; time: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return { date: `${parts.year}-${parts.month}-${parts.day}`, time: `${parts.hour}:${parts.minute}` };
}

/** Whether a daily-digest channel's digest falls due at `now`: past its time, and not yet sent today. */
export function digestDue(
  channel: Pick<NotificationChannel, 'digestTime' | 'lastDigestAt'>,
  now: Date,
  timeZone: string,
): boolean {
  const today = localParts(now, timeZone);
  if (today.time < channel.digestTime) return false;
  return !channel.lastDigestAt || localParts(channel.lastDigestAt, timeZone).date !== today.date;
}

/**
 * For each daily-digest channel whose time has come: one digest event carrying every held
 * delivery, and one pending delivery of it; the held ones are marked digested. Returns how many digests were queued.
 */
export async function queueDigests(
  em: EntityManager,
  now: Date,
  timeZone: string,
  externalUrl: string | undefined,
): Promise<number> {
  const channels = await em.find(NotificationChannelEntity, { enabled: true, digest: 'daily' });
  let queued = 0;
  for (const channel of channels) {
    if (!digestDue(channel, now, timeZone)) continue;
    channel.lastDigestAt = now;
    const held = await em.find(
      NotificationDeliveryEntity,
      { channelId: channel.id, status: 'held' },
      { orderBy: { id: 'asc' } },
    );
    if (held.length === 0) {
      await em.flush();
      continue;
    }
    const events = await em.find(
      NotificationEventEntity,
      { id: { $in: held.map((d) => d.eventId) } },
      { orderBy: { id: 'asc' } },
    );
    const text = digestText(events, externalUrl);
    const digest = em.create(NotificationEventEntity, {
      type: 'digest',
      severity: text.failures > 0 ? 'error' : 'info',
      subject: `channel:${channel.id}`,
      title: text.title,
      body: text.body,
      fields: JSON.stringify({ events: events.length, failures: text.failures }),
      linkPath: '',
      occurredAt: now,
      dispatchedAt: now,
    });
    await em.flush();
    const delivery = em.create(NotificationDeliveryEntity, {
      eventId: digest.id,
      channelId: channel.id,
      eventType: 'digest',
      subject: digest.subject,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastError: '',
      coalescedCount: 0,
      mergedInto: null,
      deliveredAt: null,
    });
    await em.flush();
    for (const d of held) {
      d.status = 'digested';
      d.mergedInto = delivery.id;
    }
    await em.flush();
    queued++;
  }
  return queued;
}
