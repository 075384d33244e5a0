import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { EventBus } from '../events/event-bus.ts';
import type { StorageTargetOpener } from './target-opener.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { testInstance } from './target-test.ts';
import { providerFailure, trimReason } from './target-opener.ts';

export interface HealthTransition { targetId: number; name: string; from: string; to: 'healthy' | 'unhealthy'; message: string }

/**
 * Tests every enabled target periodically and records the outcome on the target. The state
 * lives in the database, so an event fires once per transition (unhealthy, then recovered),
 * across restarts too, not once per failed check.
 */
export interface StorageHealthDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
  events: EventBus;
  /** Drops expired Google Drive authorisation drafts; it runs with each pass. */
  purgeOAuthDrafts: () => Promise<unknown>;
  logger: FastifyBaseLogger;
}

export class StorageHealthMonitor {
  readonly #d: StorageHealthDeps;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<HealthTransition[]> | undefined;

  constructor({ orm, storageOpener, events, purgeOAuthDrafts, logger }: StorageHealthDeps) {
    this.#d = { orm, storageOpener, events, purgeOAuthDrafts, logger };
    this.#log = logger;
  }

  start(intervalSeconds: number): void {
    if (intervalSeconds <= 0 || this.#timer) return;
    this.#timer = setInterval(() => {
      this.runOnce().catch((err: unknown) => this.#log.error({ err }, 'storage health check failed'));
    }, intervalSeconds * 1000);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  /** One pass over all enabled targets; overlapping calls share the pass in progress. */
  runOnce(): Promise<HealthTransition[]> {
    this.#running ??= this.#pass().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #pass(): Promise<HealthTransition[]> {
    const transitions: HealthTransition[] = [];
    const { storageOpener, events, purgeOAuthDrafts } = this.#d;
    const em = this.#d.orm.em.fork();
    await purgeOAuthDrafts();
    const targets = await em.find(StorageTargetEntity, { enabled: true }, { populate: ['secrets'] });
    for (const target of targets) {
      let result: { success: boolean; message: string };
      try {
        result = await testInstance(await storageOpener.open(target));
      } catch (err) {
        result = { success: false, message: providerFailure(err).message };
      }
      const next = result.success ? 'healthy' : 'unhealthy';
      const previous = target.healthStatus;
      target.healthStatus = next;
      target.healthCheckedAt = new Date();
      target.healthMessage = trimReason(result.message, 500);
      target.lastTestStatus = result.success ? 'success' : 'failed';
      target.lastTestAt = target.healthCheckedAt;
      target.lastTestMessage = target.healthMessage;
      await em.flush();
      const alert = next === 'unhealthy' ? previous !== 'unhealthy' : previous === 'unhealthy';
      if (alert) {
        transitions.push({ targetId: target.id, name: target.name, from: previous, to: next, message: result.message });
        events.publish({
          type: next === 'unhealthy' ? 'storage_unhealthy' : 'storage_recovered',
          title: next === 'unhealthy' ? `Storage target "${target.name}" is unhealthy` : `Storage target "${target.name}" recovered`,
          body: result.message,
          fields: { targetId: target.id, targetName: target.name, targetType: target.type },
        });
      }
    }
    return transitions;
  }
}
