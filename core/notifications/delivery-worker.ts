import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config/config.ts';
import type { Alerts } from './alerts.ts';
import type { NotificationMetrics } from '../metrics/notification-metrics.ts';
import {
  NotificationAttemptEntity,
  NotificationChannelEntity,
  NotificationDeliveryEntity,
  NotificationEventEntity,
  type NotificationDelivery,
} from '../db/entities/notification.ts';
import type { NotificationSender } from './notification-sender.ts';
import { dispatchPending, queueDigests } from './dispatch.ts';
import { messageOf } from './message.ts';

const MAX_BACKOFF_MS = 3600_000;
/** Deliveries one lane takes per query. */
const LANE_BATCH = 20;
/** How often digests are looked at. */
const DIGEST_CHECK_MS = 60_000;

export interface DeliveryWorkerDeps {
  orm: MikroORM;
  config: Config;
  alerts: Alerts;
  notificationSender: NotificationSender;
  notificationMetrics: NotificationMetrics;
  readSettings: () => Promise<Record<string, string>>;
  logger: FastifyBaseLogger;
}

/** The wait before attempt `attempt + 1` after `attempt` failed ones: base, 2 x base, 4 x base ... up to an hour. */
export function backoffMs(baseSeconds: number, attempt: number): number {
  return Math.min(MAX_BACKOFF_MS, baseSeconds * 1000 * 2 ** Math.max(0, attempt - 1));
}

/**
 * Sends what the outbox holds. Each pass fans new events out to channels, queues digests that
 * fell due, and starts one lane per channel with deliveries due: a lane sends its channel's
 * deliveries one after another (in order), and lanes run side by side, so a slow or failing
 * channel delays nobody else, and nothing here runs inside a backup.
 *
 * A delivery is claimed by a conditional update (pending -> sending) before it is sent. A master
 * that dies mid-send leaves it `sending`; at start-up it is sent again, with the same idempotency
 * key, since whether the receiver got it is unknown (at-least-once; receivers deduplicate).
 */
export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #lanes = new Map<number, Promise<void>>();
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => void) | undefined;
  #pass: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #lastDigestCheck = 0;

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    const em = this.#deps.orm.em.fork();
    const resumed = await em.nativeUpdate(
      NotificationDeliveryEntity,
      { status: 'sending' },
      { status: 'pending', nextAttemptAt: new Date() },
    );
    if (resumed > 0)
      this.#deps.logger.warn({ resumed }, 'notification deliveries interrupted by a restart will be sent again');
    this.#unsubscribe = this.#deps.alerts.onStored(() => this.wake());
    const pollMs = Math.min(5000, Math.max(200, this.#deps.config.notifyRetryBaseSeconds * 500));
    this.#timer = setInterval(() => this.wake(), pollMs);
    this.#timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    this.#unsubscribe?.();
    await this.#pass?.catch(() => undefined);
    await Promise.allSettled([...this.#lanes.values()]);
  }

  /** Runs a pass now (or right after the one in progress). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    this.#pass = this.#runPass()
      .catch((err: unknown) => this.#deps.logger.error({ err }, 'notification pass failed'))
      .finally(() => {
        this.#pass = undefined;
        if (this.#again) {
          this.#again = false;
          this.wake();
        }
      });
  }

  /** Resolves once everything due now has been tried (tests and shutdown). */
  async settle(): Promise<void> {
    for (let i = 0; i < 50; i++) {
      this.wake();
      await this.#pass;
      await Promise.allSettled([...this.#lanes.values()]);
      if (!this.#pass && this.#lanes.size === 0 && !(await this.#dueNow())) {
        await this.#updateDepth();
        return;
      }
    }
  }

  async #dueNow(): Promise<boolean> {
    const em = this.#deps.orm.em.fork();
    return (
      (await em.count(NotificationEventEntity, { dispatchedAt: null })) +
        (await em.count(NotificationDeliveryEntity, { status: 'pending', nextAttemptAt: { $lte: new Date() } })) >
      0
    );
  }

  async #runPass(): Promise<void> {
    const { config } = this.#deps;
    const now = new Date();
    const em = this.#deps.orm.em.fork();
    const settings = await this.#deps.readSettings();
    await dispatchPending(em, {
      coalesceMs: config.notifyCoalesceSeconds * 1000,
      backupNotifications: settings.backup_notification_enabled !== 'false',
      now,
    });
    if (now.getTime() - this.#lastDigestCheck >= DIGEST_CHECK_MS) {
      this.#lastDigestCheck = now.getTime();
      await queueDigests(
        em,
        now,
        settings.timezone || Intl.DateTimeFormat().resolvedOptions().timeZone,
        config.externalUrl,
      );
    }
    const due = await em.find(
      NotificationDeliveryEntity,
      { status: 'pending', nextAttemptAt: { $lte: now } },
      { fields: ['channelId'], orderBy: { id: 'asc' }, limit: 1000 },
    );
    for (const channelId of new Set(due.map((d) => d.channelId))) this.#startLane(channelId);
    await this.#updateDepth();
  }

  #startLane(channelId: number): void {
    if (this.#lanes.has(channelId) || this.#stopped) return;
    const lane = this.#runLane(channelId)
      .catch((err: unknown) => this.#deps.logger.error({ err, channelId }, 'notification lane failed'))
      .finally(() => {
        this.#lanes.delete(channelId);
        void this.#updateDepth().catch(() => undefined);
      });
    this.#lanes.set(channelId, lane);
  }

  async #runLane(channelId: number): Promise<void> {
    while (!this.#stopped) {
      const em = this.#deps.orm.em.fork();
      const batch = await em.find(
        NotificationDeliveryEntity,
        { channelId, status: 'pending', nextAttemptAt: { $lte: new Date() } },
        { orderBy: { id: 'asc' }, limit: LANE_BATCH },
      );
      if (batch.length === 0) return;
      for (const delivery of batch) {
        if (this.#stopped) return;
        await this.#deliver(delivery);
      }
    }
  }

  async #deliver(delivery: NotificationDelivery): Promise<void> {
    const { orm, config, notificationSender, notificationMetrics, logger } = this.#deps;
    const em = orm.em.fork();
    // The claim: only one sender moves a delivery from pending to sending.
    const claimed = await em.nativeUpdate(
      NotificationDeliveryEntity,
      { id: delivery.id, status: 'pending' },
      { status: 'sending', attempts: delivery.attempts + 1 },
    );
    if (claimed !== 1) return;
    const attempt = delivery.attempts + 1;
    const channel = await em.findOne(NotificationChannelEntity, { id: delivery.channelId }, { populate: ['secrets'] });
    const event = await em.findOne(NotificationEventEntity, { id: delivery.eventId });
    let error: { kind: string; message: string } | undefined;
    let durationMs = 0;
    if (!channel || !event) {
      error = { kind: 'permanent', message: !channel ? 'the channel was deleted' : 'the event is gone' };
    } else {
      const outcome = await notificationSender.sendThrough(channel, messageOf(event, delivery, config.externalUrl));
      durationMs = outcome.durationMs;
      if (!outcome.ok) error = { kind: outcome.kind, message: outcome.message };
    }
    const now = new Date();
    em.create(NotificationAttemptEntity, {
      deliveryId: delivery.id,
      channelId: delivery.channelId,
      attempt,
      outcome: error ? 'failed' : 'delivered',
      errorKind: error?.kind ?? '',
      error: error?.message ?? '',
      durationMs,
      at: now,
    });
    const fresh = await em.findOneOrFail(NotificationDeliveryEntity, { id: delivery.id });
    if (!error) {
      Object.assign(fresh, { status: 'delivered', deliveredAt: now, nextAttemptAt: null, lastError: '' });
      notificationMetrics.deliveries.inc({ type: channel?.type ?? 'unknown', outcome: 'delivered' });
    } else {
      const retry = error.kind === 'transient' && attempt < config.notifyMaxAttempts;
      Object.assign(fresh, {
        status: retry ? 'pending' : 'failed',
        lastError: error.message,
        nextAttemptAt: retry ? new Date(now.getTime() + backoffMs(config.notifyRetryBaseSeconds, attempt)) : null,
      });
      notificationMetrics.deliveries.inc({ type: channel?.type ?? 'unknown', outcome: retry ? 'retry' : 'failed' });
      logger.warn(
        {
          channelId: delivery.channelId,
          deliveryId: delivery.id,
          event: delivery.eventType,
          attempt,
          kind: error.kind,
          error: error.message,
          retry,
        },
        'notification delivery failed',
      );
    }
    await em.flush();
  }

  async #updateDepth(): Promise<void> {
    const em = this.#deps.orm.em.fork();
    const depth =
      (await em.count(NotificationEventEntity, { dispatchedAt: null })) +
      (await em.count(NotificationDeliveryEntity, { status: { $in: ['pending', 'sending'] } }));
    this.#deps.notificationMetrics.outboxDepth.set(depth);
  }
}
