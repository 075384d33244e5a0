import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../events/event-bus.ts';
import { NotificationEventEntity, type NotificationEvent } from '../db/entities/notification.ts';
import { severityOf, type Alert } from './alert.ts';

/** An alert written into a unit of work, published once that work is flushed. */
export interface StagedAlert {
  alert: Alert;
  row: NotificationEvent;
}

/**
 * Raises alerts: each goes into the notification outbox (delivered by the DeliveryWorker, which
 * wakes on the bus) and onto the event bus (SSE clients).
 *
 * `stage` + `commit` put the outbox row in the caller's unit of work, so an outcome and the
 * notice of it are stored together or not at all: a crash between them cannot lose the notice.
 */
export class Alerts {
  readonly #orm: MikroORM;
  readonly #events: EventBus;
  readonly #stored = new Set<() => void>();

  readonly #log: FastifyBaseLogger;

  constructor({ orm, events, logger }: { orm: MikroORM; events: EventBus; logger: FastifyBaseLogger }) {
    this.#orm = orm;
    this.#events = events;
    this.#log = logger;
  }

  /** Adds the alert's outbox row to `em`; call `commit` after the caller's flush. */
  stage(em: EntityManager, alert: Alert, occurredAt = new Date()): StagedAlert {
    const row = em.create(NotificationEventEntity, {
      type: alert.type,
      severity: severityOf(alert),
      subject: alert.subject ?? '',
      title: oneLine(alert.title).slice(0, 500),
      body: alert.body,
      fields: JSON.stringify(alert.fields),
      linkPath: alert.linkPath ?? '',
      occurredAt,
      dispatchedAt: null,
    });
    return { alert, row };
  }

  /**
   * Call once a staged alert's row is stored: the delivery worker wakes, and SSE clients see the
   * alert unless `publish` is false (a caller that publishes its own event, as backup outcomes do:
   * every run's result goes on the bus, while only some are news for channels).
   */
  commit(staged: StagedAlert, options: { publish?: boolean } = {}): void {
    const { alert, row } = staged;
    if (options.publish !== false)
      this.#events.publish({
        type: alert.type,
        title: row.title,
        body: alert.body,
        fields: alert.fields,
        timestamp: row.occurredAt.toISOString(),
      });
    for (const listener of this.#stored) listener();
  }

  /** Calls `listener` after each alert is stored (the delivery worker); returns the unsubscribe. */
  onStored(listener: () => void): () => void {
    this.#stored.add(listener);
    return () => this.#stored.delete(listener);
  }

  /** Stores and publishes an alert on its own. */
  async raise(alert: Alert): Promise<void> {
    const em = this.#orm.em.fork();
    const staged = this.stage(em, alert);
    await em.flush();
    this.commit(staged);
  }

  /**
   * `raise` for callers whose own work is done and must not fail because of the notice (a
   * restore that succeeded stays a success): a failure to store the alert is logged.
   */
  notify(alert: Alert): Promise<void> {
    return this.raise(alert).catch((err: unknown) =>
      this.#log.error({ err, type: alert.type }, 'an alert could not be stored'),
    );
  }

  /**
   * Raises the alert unless one of the same type and subject was raised within `periodMs`
   * (the outbox remembers, across restarts): "once per task per 6 h while it lasts".
   */
  async raiseOnce(alert: Alert & { subject: string }, periodMs: number, now = new Date()): Promise<boolean> {
    const em = this.#orm.em.fork();
    const recent = await em.count(NotificationEventEntity, {
      type: alert.type,
      subject: alert.subject,
      occurredAt: { $gt: new Date(now.getTime() - periodMs) },
    });
    if (recent > 0) return false;
    const staged = this.stage(em, alert, now);
    await em.flush();
    this.commit(staged);
    return true;
  }
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').trim();
}
