import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { AuditLogEntity } from '../db/entities/audit-log.ts';

const SWEEP_INTERVAL_MS = 6 * 3600_000;

/**
 * Applies the `audit_retention_days` setting (0 keeps everything): entries older than that
 * are deleted at start-up and every six hours.
 */
export class AuditRetention {
  readonly #orm: MikroORM;
  readonly #readSettings: () => Promise<Record<string, string>>;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;

  constructor({
    orm,
    readSettings,
    logger,
  }: { orm: MikroORM; readSettings: () => Promise<Record<string, string>>; logger: FastifyBaseLogger }) {
    this.#orm = orm;
    this.#readSettings = readSettings;
    this.#log = logger;
  }

  start(): void {
    const sweep = () => this.sweep().catch((err: unknown) => this.#log.error({ err }, 'audit retention sweep failed'));
    void sweep();
    // sweep() settles and never rejects (it logs its own failure): nothing to wait for.
    this.#timer = setInterval(() => void sweep(), SWEEP_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Deletes expired entries; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const days = Number((await this.#readSettings()).audit_retention_days);
    if (!Number.isInteger(days) || days <= 0) return 0;
    const cutoff = new Date(now.getTime() - days * 86400_000);
    const deleted = await this.#orm.em.fork().nativeDelete(AuditLogEntity, { createdAt: { $lt: cutoff } });
    if (deleted > 0) this.#log.info({ deleted, days }, 'audit entries past retention deleted');
    return deleted;
  }
}
