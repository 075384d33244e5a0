import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import type { FastifyBaseLogger } from 'fastify';
import { BackupRecordEntity } from '../db/entities/backup-record.ts';
import { ReplicationRecordEntity } from '../db/entities/recovery-records.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { trimReason, type StorageTargetOpener } from './target-opener.ts';

/**
 * Temporary objects untouched for this long belong to no live upload: an upload writes its
 * temporary continuously, and a run longer than this still has its key in the keep list.
 */
export const STALE_TEMPORARY_MS = 24 * 3600_000;

export interface SweepOutcome {
  removed: number;
  failedTargets: string[];
}

/**
 * Removes stale temporary upload objects (see StorageInstance.removeStaleTemporaries) from every
 * enabled target: what start-up recovery could not reach (a target that was down, an agent's
 * upload to a target the master reaches, an upload from an older version). Runs after start-up
 * and every `BACKPLANE_TEMP_SWEEP_INTERVAL` seconds; the keys of runs in progress are kept
 * whatever their temporaries' age.
 */
export class TemporarySweep {
  readonly #orm: MikroORM;
  readonly #opener: StorageTargetOpener;
  readonly #log: FastifyBaseLogger;
  readonly #periodic: PeriodicPass<SweepOutcome>;

  constructor({
    orm,
    storageOpener,
    logger,
  }: { orm: MikroORM; storageOpener: StorageTargetOpener; logger: FastifyBaseLogger }) {
    this.#orm = orm;
    this.#opener = storageOpener;
    this.#log = logger.child({ component: 'temporary-sweep' });
    this.#periodic = new PeriodicPass(
      (now) => this.#pass(now),
      (err: unknown) => this.#log.error({ err }, 'temporary object sweep failed'),
    );
  }

  start(intervalSeconds: number): void {
    if (intervalSeconds > 0) this.#periodic.start(intervalSeconds * 1000, { immediately: true });
  }

  async stop(): Promise<void> {
    await this.#periodic.stop();
  }

  /** One pass over all enabled targets; overlapping calls share the pass in progress. */
  runOnce(now = new Date()): Promise<SweepOutcome> {
    return this.#periodic.runOnce(now);
  }

  async #pass(now: Date): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { removed: 0, failedTargets: [] };
    const em = this.#orm.em.fork();
    const storageOpener = this.#opener;
    const olderThan = new Date(now.getTime() - STALE_TEMPORARY_MS);
    const keep = await keysInProgress(em);
    for (const target of await em.find(StorageTargetEntity, { enabled: true }, { populate: ['secrets'] })) {
      try {
        const removed = await storageOpener.use(
          target,
          async (instance) => (await instance.removeStaleTemporaries?.(olderThan, keep)) ?? 0,
        );
        if (removed > 0) this.#log.info({ target: target.name, removed }, 'stale temporary upload objects removed');
        outcome.removed += removed;
      } catch (err) {
        outcome.failedTargets.push(target.name);
        this.#log.warn(
          { target: target.name, reason: trimReason(err) },
          'could not sweep temporary upload objects; next pass retries',
        );
      }
    }
    return outcome;
  }
}

/** Object keys being uploaded right now, on the master or by an agent: their temporaries are live. */
async function keysInProgress(em: EntityManager): Promise<string[]> {
  const backups = await em.find(
    BackupRecordEntity,
    { status: 'running', storagePath: { $ne: '' } },
    { fields: ['storagePath'] },
  );
  const replications = await em.find(ReplicationRecordEntity, { status: 'running' }, { fields: ['storagePath'] });
  return [...new Set([...backups, ...replications].map((r) => r.storagePath).filter((key) => key !== ''))];
}
