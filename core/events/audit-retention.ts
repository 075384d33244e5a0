import type { AwilixContainer } from 'awilix';
import type { FastifyBaseLogger } from 'fastify';
import type { Cradle } from '../container.ts';
import { createJobScope } from '../container.ts';
import { AuditLogEntity } from '../db/entities/audit-log.ts';

const SWEEP_INTERVAL_MS = 6 * 3600_000;

/**
 * Applies the `audit_retention_days` setting (0 keeps everything): entries older than that
 * are deleted at start-up and every six hours.
 */
export class AuditRetention {
  readonly #container: AwilixContainer<Cradle>;
  readonly #log: FastifyBaseLogger;
  #timer: NodeJS.Timeout | undefined;

  constructor(container: AwilixContainer<Cradle>, log: FastifyBaseLogger) {
    this.#container = container;
    this.#log = log;
  }

  start(): void {
    const sweep = () => this.sweep().catch((err: unknown) => this.#log.error({ err }, 'audit retention sweep failed'));
    void sweep();
    this.#timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** Deletes expired entries; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    const scope = createJobScope(this.#container);
    try {
      const days = Number((await scope.cradle.settings.values()).audit_retention_days);
      if (!Number.isInteger(days) || days <= 0) return 0;
      const cutoff = new Date(now.getTime() - days * 86400_000);
      const deleted = await scope.cradle.em.nativeDelete(AuditLogEntity, { createdAt: { $lt: cutoff } });
      if (deleted > 0) this.#log.info({ deleted, days }, 'audit entries past retention deleted');
      return deleted;
    } finally {
      await scope.dispose();
    }
  }
}
