import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Alerts } from '../notifications/alerts.ts';
import type { StorageTargetOpener } from './target-opener.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { testInstance } from './target-test.ts';
import { providerFailure, trimReason } from './target-opener.ts';
import { recordedUsage } from './target-usage.ts';
import { humanBytes } from '../engine/index.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import type { EntityManager } from '@mikro-orm/core';

/** Used share of a target's space from which it is reported as nearly full. */
const CAPACITY_WARNING_RATE = 0.85;
const CAPACITY_WARNING_PERIOD_MS = 24 * 3600_000;
/** A backend that does not report its space in time is not waited for. */
const USAGE_TIMEOUT_MS = 30_000;

function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export interface HealthTransition {
  targetId: number;
  name: string;
  from: string;
  to: 'healthy' | 'unhealthy';
  message: string;
}

/**
 * Tests every enabled target periodically and records the outcome on the target. The state
 * lives in the database, so an event fires once per transition (unhealthy, then recovered),
 * across restarts too, not once per failed check.
 */
export interface StorageHealthDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
  alerts: Alerts;
  /** Drops expired Google Drive authorisation drafts; it runs with each pass. */
  purgeOAuthDrafts: () => Promise<unknown>;
  logger: FastifyBaseLogger;
}

export class StorageHealthMonitor {
  readonly #deps: StorageHealthDeps;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<HealthTransition[]> | undefined;

  constructor({ orm, storageOpener, alerts, purgeOAuthDrafts, logger }: StorageHealthDeps) {
    this.#deps = { orm, storageOpener, alerts, purgeOAuthDrafts, logger };
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
    const { storageOpener, alerts, purgeOAuthDrafts } = this.#deps;
    const em = this.#deps.orm.em.fork();
    await purgeOAuthDrafts();
    const targets = await em.find(StorageTargetEntity, { enabled: true }, { populate: ['secrets'] });
    for (const target of targets) {
      let result: { success: boolean; message: string };
      let capacity: { usedBytes?: number; totalBytes?: number } | undefined;
      try {
        const instance = await storageOpener.open(target);
        // Read before the test: testInstance closes the instance.
        capacity = instance.usage
          ? await withinTime(instance.usage(), USAGE_TIMEOUT_MS).catch(() => undefined)
          : undefined;
        result = await testInstance(instance);
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
        await alerts.notify({
          type: next === 'unhealthy' ? 'storage_unhealthy' : 'storage_recovered',
          subject: `storage:${target.id}`,
          linkPath: `/api/storage-targets/${target.id}`,
          title:
            next === 'unhealthy'
              ? `Storage target "${target.name}" is unhealthy`
              : `Storage target "${target.name}" recovered`,
          body: result.message,
          fields: {
            storageTargetId: target.id,
            storageTargetName: target.name,
            storageType: target.type,
            error: next === 'unhealthy' ? result.message : '',
          },
        });
      }
      if (result.success) await this.#checkCapacity(em, target, capacity);
    }
    return transitions;
  }

  /**
   * `storage_capacity_warning` when a target is at 85 % or more of its quota (what Backplane
   * stored there) or of the space its backend reports, at most once a day per target.
   */
  async #checkCapacity(
    em: EntityManager,
    target: StorageTarget,
    reported: { usedBytes?: number; totalBytes?: number } | undefined,
  ): Promise<void> {
    const candidates: Array<{ source: 'quota' | 'provider'; usedBytes: number; totalBytes: number }> = [];
    if (target.quotaBytes > 0)
      candidates.push({
        source: 'quota',
        usedBytes: (await recordedUsage(em, target.id)).bytes,
        totalBytes: target.quotaBytes,
      });
    if (reported?.totalBytes && reported.totalBytes > 0 && reported.usedBytes !== undefined)
      candidates.push({ source: 'provider', usedBytes: reported.usedBytes, totalBytes: reported.totalBytes });
    const worst = candidates
      .map((c) => ({ ...c, rate: c.usedBytes / c.totalBytes }))
      .sort((a, b) => b.rate - a.rate)[0];
    if (!worst || worst.rate < CAPACITY_WARNING_RATE) return;
    const percent = Math.round(worst.rate * 1000) / 10;
    await this.#deps.alerts
      .raiseOnce(
        {
          type: 'storage_capacity_warning',
          subject: `storage:${target.id}`,
          linkPath: `/api/storage-targets/${target.id}`,
          title: `Storage target "${target.name}" is ${percent} % full`,
          body:
            `${humanBytes(worst.usedBytes)} of ${humanBytes(worst.totalBytes)}` +
            ` (${worst.source === 'quota' ? 'its quota' : 'the space the backend reports'}) is used.`,
          fields: {
            storageTargetId: target.id,
            storageTargetName: target.name,
            storageType: target.type,
            usageRate: percent,
            usedBytes: worst.usedBytes,
            totalBytes: worst.totalBytes,
            source: worst.source,
          },
        },
        CAPACITY_WARNING_PERIOD_MS,
      )
      .catch((err: unknown) => this.#log.error({ err }, 'capacity warning could not be stored'));
  }
}
