import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupRecordEntity, ARTIFACT_STATUSES } from '../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { SYSTEM_ACTOR as SYSTEM, type AuditWriter } from '../events/audit-writer.ts';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import { decideRetention } from './retention-policy.ts';
import type { RecordDeleter } from './record-deleter.ts';
import { scheduleTimeZone } from './time-zone.ts';

export interface RetentionRun {
  kept: number[];
  deleted: number[];
  /** Records chosen for deletion whose copies could not all be removed yet (retried later). */
  pending: number[];
}

/**
 * Applies a task's retention after each successful or partial run: one decision per record
 * (across all of its copies), made by `decideRetention`; deletions go through RecordDeleter.
 */
export class RetentionService {
  readonly #orm: MikroORM;
  readonly #deleter: RecordDeleter;
  readonly #audit: AuditWriter;
  readonly #metrics: BackupMetrics;
  readonly #log: FastifyBaseLogger;

  constructor({
    orm,
    recordDeleter,
    audit,
    backupMetrics,
    logger,
  }: {
    orm: MikroORM;
    recordDeleter: RecordDeleter;
    audit: AuditWriter;
    backupMetrics: BackupMetrics;
    logger: FastifyBaseLogger;
  }) {
    this.#orm = orm;
    this.#deleter = recordDeleter;
    this.#audit = audit;
    this.#metrics = backupMetrics;
    this.#log = logger.child({ component: 'retention' });
  }

  async applyForTask(taskId: number, now = new Date()): Promise<RetentionRun> {
    const em = this.#orm.em.fork();
    const task = await em.findOne(BackupTaskEntity, { id: taskId });
    if (!task) return { kept: [], deleted: [], pending: [] };
    const records = await em.find(
      BackupRecordEntity,
      { taskId, status: { $in: [...ARTIFACT_STATUSES] }, deleteRequestedAt: null },
      { fields: ['id', 'completedAt', 'startedAt', 'locked', 'baseRecordId'] },
    );
    const decision = decideRetention(
      records.map((r) => ({
        id: r.id,
        completedAt: r.completedAt ?? r.startedAt ?? new Date(0),
        locked: r.locked,
        baseRecordId: r.baseRecordId,
      })),
      task,
      { now, timeZone: await scheduleTimeZone(this.#orm) },
    );
    const run: RetentionRun = { kept: decision.keep, deleted: [], pending: [] };
    for (const id of decision.delete) {
      const reason = decision.reasons.get(id) ?? '';
      try {
        const outcome = await this.#deleter.delete(id);
        if (outcome.deleted) {
          run.deleted.push(id);
          this.#metrics.retentionDeleted.inc();
          await this.#audit.record(SYSTEM, {
            category: 'backup_record',
            action: 'retention_delete',
            targetType: 'backup_record',
            targetId: id,
            targetName: task.name,
            detail: reason,
          });
        } else {
          run.pending.push(id);
          this.#metrics.retentionFailures.inc();
          await this.#audit.record(SYSTEM, {
            category: 'backup_record',
            action: 'retention_delete_failed',
            targetType: 'backup_record',
            targetId: id,
            targetName: task.name,
            detail: `${reason}; ${outcome.error ?? ''}`.slice(0, 1000),
          });
        }
      } catch (err) {
        // Locked or started meanwhile: the next run decides again.
        run.pending.push(id);
        this.#log.warn({ err, recordId: id }, 'retention skipped a record');
      }
    }
    if (run.deleted.length > 0 || run.pending.length > 0)
      this.#log.info({ taskId, deleted: run.deleted, pending: run.pending }, 'retention applied');
    return run;
  }
}
