import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A notification channel: a notifier type and its settings. As for storage targets, the type's
 * settings are JSON (`config`) plus a sealed blob of its secret fields (`secrets`).
 */
export const NotificationChannelEntity = defineEntity({
  name: 'NotificationChannel',
  tableName: 'notification_channels',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(100).unique(),
    type: p.string().length(64),
    enabled: p.boolean().default(true),
    onSuccess: p.boolean().default(false),
    onFailure: p.boolean().default(true),
    /** JSON array of event types; empty = the onSuccess/onFailure rule for backup results. */
    eventTypes: p.text().default('[]'),
    config: p.text(),
    secrets: p.text().default('').lazy(),
    /** '' = every event as it happens; 'daily' = one digest a day at `digestTime`. */
    digest: p.string().length(16).default(''),
    /** `HH:MM` in the server's time zone setting. */
    digestTime: p.string().length(5).default('08:00'),
    lastDigestAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type NotificationChannel = InferEntity<typeof NotificationChannelEntity>;

/**
 * The outbox: one row per event to notify, written in the same transaction as the outcome it
 * reports. The delivery worker fans it out to the subscribed channels (`dispatchedAt`).
 */
export const NotificationEventEntity = defineEntity({
  name: 'NotificationEvent',
  tableName: 'notification_events',
  indexes: [
    { name: 'notification_events_dispatched_at_index', properties: ['dispatchedAt'] },
    { name: 'notification_events_type_subject_index', properties: ['type', 'subject', 'occurredAt'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    type: p.string().length(64),
    severity: p.string().length(16),
    /** What the event is about (`task:5`, `storage:2`): coalescing and once-per-period rules key on it. */
    subject: p.string().length(128).default(''),
    title: p.string().length(500),
    body: p.text(),
    fields: p.text(),
    /** A path under the external URL (`/api/backup/records/12`), '' when none. */
    linkPath: p.string().length(500).default(''),
    occurredAt: p.datetime(),
    dispatchedAt: p.datetime().nullable(),
  },
});
export type NotificationEvent = InferEntity<typeof NotificationEventEntity>;

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed' | 'coalesced' | 'held' | 'digested';

/** One event for one channel, and its fate. */
export const NotificationDeliveryEntity = defineEntity({
  name: 'NotificationDelivery',
  tableName: 'notification_deliveries',
  uniques: [{ name: 'notification_deliveries_event_channel_unique', properties: ['eventId', 'channelId'] }],
  indexes: [
    { name: 'notification_deliveries_status_next_index', properties: ['status', 'nextAttemptAt'] },
    { name: 'notification_deliveries_channel_index', properties: ['channelId', 'eventType', 'subject', 'createdAt'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    eventId: p.integer(),
    channelId: p.integer(),
    eventType: p.string().length(64),
    subject: p.string().length(128).default(''),
    status: p.string().length(16).$type<DeliveryStatus>(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    lastError: p.string().length(1000).default(''),
    /** Later events folded into this one (coalescing), or the digest that carried this one. */
    coalescedCount: p.integer().default(0),
    /** The delivery this one was folded into (coalesced) or carried by (digested). */
    mergedInto: p.integer().nullable(),
    deliveredAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type NotificationDelivery = InferEntity<typeof NotificationDeliveryEntity>;

/** One try of a delivery: the delivery log. */
export const NotificationAttemptEntity = defineEntity({
  name: 'NotificationAttempt',
  tableName: 'notification_attempts',
  indexes: [{ name: 'notification_attempts_delivery_index', properties: ['deliveryId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    deliveryId: p.integer(),
    channelId: p.integer(),
    attempt: p.integer(),
    outcome: p.string().length(16).$type<'delivered' | 'failed'>(),
    /** The ProviderError kind of a failure ('' when delivered). */
    errorKind: p.string().length(16).default(''),
    error: p.string().length(1000).default(''),
    durationMs: p.integer(),
    at: p.datetime(),
  },
});
export type NotificationAttempt = InferEntity<typeof NotificationAttemptEntity>;
