import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupRecordEntity } from '../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { AppError } from '../http/app-error.ts';
import type { BackupCancel } from './backup-cancel.ts';
import type { Cluster } from '../db/cluster.ts';
import { timeLimitReached } from '../engine/index.ts';

/**
 * Enforces each task's `timeoutMinutes`: every `runLimitCheckMs` the running backups (master
 * and agent runs alike) are compared with their task's limit, counted from the run's start
 * (time spent queued does not count), and an overrun is stopped through BackupCancel.
 * `runLimitMinuteMs` is the length of a limit minute: 60 000 except in tests. Several masters:
 * checks the runs it holds itself; the leader checks the agents' runs too.
 */
export class RunTimeLimits {
  readonly #orm: MikroORM;
  readonly #cancel: BackupCancel;
  readonly #log: FastifyBaseLogger;
  readonly #everyMs: number;
  readonly #minuteMs: number;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  readonly #cluster: Cluster;

  constructor({
    orm,
    backupCancel,
    logger,
    config,
    cluster,
  }: {
    orm: MikroORM;
    backupCancel: BackupCancel;
    logger: FastifyBaseLogger;
    config: { runLimitCheckMs: number; runLimitMinuteMs: number };
    cluster: Cluster;
  }) {
    this.#cluster = cluster;
    this.#orm = orm;
    this.#cancel = backupCancel;
    this.#log = logger.child({ component: 'run-time-limits' });
    this.#everyMs = config.runLimitCheckMs;
    this.#minuteMs = config.runLimitMinuteMs;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.sweep(), this.#everyMs).unref();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** One pass; concurrent calls share it. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((err: unknown) => this.#log.error({ err }, 'time limit check failed'))
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    const em = this.#orm.em.fork();
    const limited = await em.find(
      BackupTaskEntity,
      { timeoutMinutes: { $gt: 0 } },
      { fields: ['id', 'timeoutMinutes'] },
    );
    if (limited.length === 0) return;
    const limitOf = new Map(limited.map((t) => [t.id, t.timeoutMinutes]));
    const mine = { nodeId: 0, masterId: this.#cluster.masterId };
    const held = this.#cluster.leader ? { $or: [mine, { nodeId: { $ne: 0 } }] } : mine;
    const running = await em.find(
      BackupRecordEntity,
      { status: 'running', taskId: { $in: [...limitOf.keys()] }, ...held },
      { fields: ['id', 'taskId', 'startedAt'] },
    );
    const now = Date.now();
    for (const record of running) {
      const minutes = limitOf.get(record.taskId)!;
      if (!record.startedAt || now - record.startedAt.getTime() < minutes * this.#minuteMs) continue;
      this.#log.warn(
        { recordId: record.id, taskId: record.taskId, minutes },
        'backup run over its time limit; stopping it',
      );
      // Not awaited one by one: a run that takes long to stop must not delay the others' limits.
      void this.#cancel.stop(record.id, timeLimitReached(minutes)).catch((err: unknown) => {
        if (!(err instanceof AppError))
          this.#log.error({ err, recordId: record.id }, 'stopping an overrunning backup failed');
      });
    }
  }
}
