import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordLogEntity,
  BackupRecordEntryEntity,
} from '../db/entities/backup-record.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { AppError } from '../http/app-error.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import { dependentsOf } from './backup-chain.ts';
import type { TarSnapshots } from './tar-snapshots.ts';
import type { Repositories } from './repositories.ts';
import { RepositoryEntity } from '../db/entities/repository.ts';

/** How often the leader retries deletions that failed (a target that was down). */
const RETRY_INTERVAL_MS = 10 * 60_000;

export interface DeleteOutcome {
  deleted: boolean;
  /** Why a copy could not be deleted (the row is kept and the deletion retried). */
  error?: string;
}

/**
 * Deletes a record the only safe way round: every stored copy first, then the row. A copy that
 * cannot be deleted keeps the row (marked `deleteRequestedAt`), so no object is ever orphaned
 * without a record pointing at it; `retryPending` finishes such deletions later.
 */
export class RecordDeleter {
  readonly #orm: MikroORM;
  readonly #opener: StorageTargetOpener;
  readonly #log: FastifyBaseLogger;
  readonly #retries: PeriodicPass<void>;
  readonly #tarSnapshots: TarSnapshots;
  readonly #repositories: Repositories;
  /** Repositories being pruned by this master: one prune at a time per repository. */
  readonly #pruning = new Set<number>();

  constructor({
    orm,
    storageOpener,
    logger,
    tarSnapshots,
    repositories,
  }: {
    orm: MikroORM;
    storageOpener: StorageTargetOpener;
    logger: FastifyBaseLogger;
    tarSnapshots: TarSnapshots;
    repositories: Repositories;
  }) {
    this.#orm = orm;
    this.#tarSnapshots = tarSnapshots;
    this.#repositories = repositories;
    this.#opener = storageOpener;
    this.#log = logger.child({ component: 'record-deleter' });
    this.#retries = new PeriodicPass(
      async () => {
        await this.retryPending();
        await this.pruneRepositories();
      },
      (err: unknown) => this.#log.error({ err }, 'deletion retry failed'),
    );
  }

  /** Retries pending deletions now and every ten minutes (the leader does, after start-up recovery). */
  startRetries(): void {
    this.#retries.start(RETRY_INTERVAL_MS, { immediately: true });
  }

  stopRetries(): Promise<void> {
    return this.#retries.stop();
  }

  async delete(recordId: number): Promise<DeleteOutcome> {
    const em = this.#orm.em.fork();
    const record = await em.findOne(BackupRecordEntity, { id: recordId });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (record.status === 'queued' || record.status === 'running') throw new AppError('BACKUP_RECORD_RUNNING');
    if (record.locked) throw new AppError('BACKUP_RECORD_LOCKED');
    // A differential restores only with its full: the full goes after the last of them.
    const dependents = await dependentsOf(em, recordId);
    if (dependents.length > 0)
      throw new AppError('BACKUP_RECORD_HAS_DEPENDENTS', {
        message: `Differential backups build on record ${recordId} (${dependents.map((d) => d.id).join(', ')}); delete them first.`,
        details: { dependentRecordIds: dependents.map((d) => d.id) },
      });
    record.deleteRequestedAt ??= new Date();
    await em.flush();

    const copies = await em.find(BackupRecordCopyEntity, { recordId, status: { $in: ['success', 'pending'] } });
    const targets = new Map(
      (
        await em.find(
          StorageTargetEntity,
          { id: { $in: [...new Set(copies.map((c) => c.storageTargetId))] } },
          { populate: ['secrets'] },
        )
      ).map((t) => [t.id, t]),
    );
    const errors: string[] = [];
    for (const copy of copies) {
      const target = targets.get(copy.storageTargetId);
      if (!target) {
        // The target's configuration is gone: nothing here can reach the object any more.
        this.#log.warn(
          { recordId, storageTargetId: copy.storageTargetId },
          'storage target no longer exists; copy forgotten',
        );
        copy.status = 'deleted';
        continue;
      }
      try {
        // A repository record's copy is a snapshot in the repository's folder, never an object to delete.
        if (record.backupKind === 'repository')
          await this.#repositories.release(record.taskId, target, copy.snapshotId);
        else await this.#opener.use(target, (instance) => instance.delete(copy.storagePath));
        copy.status = 'deleted';
      } catch (err) {
        const why = `${target.name}: ${err instanceof Error ? err.message : String(err)}`;
        copy.error = `delete failed: ${why}`.slice(0, 2000);
        errors.push(why);
        this.#log.error({ err, recordId, target: target.name }, 'artifact copy could not be deleted; will retry');
      }
    }
    await em.flush();
    if (errors.length > 0) return { deleted: false, error: errors.join('; ') };

    await em.transactional(async (tx) => {
      await tx.nativeDelete(BackupRecordEntryEntity, { recordId });
      await tx.nativeDelete(BackupRecordLogEntity, { recordKind: 'backup', recordId });
      await tx.nativeDelete(BackupRecordCopyEntity, { recordId });
      await tx.nativeDelete(BackupRecordEntity, { id: recordId });
    });
    await this.#tarSnapshots.remove(recordId);
    return { deleted: true };
  }

  /**
   * Prunes the repositories whose snapshots were forgotten (`restic prune`): the leader does, one
   * repository at a time; restic's own exclusive lock keeps out a backup of another master meanwhile.
   * Resolves with how many were pruned.
   */
  async pruneRepositories(): Promise<number> {
    const em = this.#orm.em.fork();
    const due = await em.find(RepositoryEntity, { pruneRequestedAt: { $ne: null } }, { populate: ['sealedPassword'] });
    let pruned = 0;
    for (const repository of due) {
      if (this.#pruning.has(repository.id)) continue;
      this.#pruning.add(repository.id);
      const requested = repository.pruneRequestedAt;
      try {
        const target = await em.findOne(
          StorageTargetEntity,
          { id: repository.storageTargetId },
          { populate: ['secrets'] },
        );
        if (!target) continue;
        const opened = await this.#repositories.open(repository, target);
        try {
          await opened.restic.unlock(); // stale locks only: a killed restic's
          await opened.restic.prune();
        } finally {
          await opened.close();
        }
        // A forget that came meanwhile asks again.
        await em.nativeUpdate(
          RepositoryEntity,
          { id: repository.id, pruneRequestedAt: requested },
          { pruneRequestedAt: null },
        );
        pruned++;
      } catch (err) {
        this.#log.error({ err, repositoryId: repository.id }, 'repository prune failed; will retry');
      } finally {
        this.#pruning.delete(repository.id);
      }
    }
    return pruned;
  }

  /** Finishes deletions that failed before; returns how many records are now gone. */
  async retryPending(): Promise<number> {
    const pending = await this.#orm.em
      .fork()
      .find(BackupRecordEntity, { deleteRequestedAt: { $ne: null }, locked: false }, { fields: ['id'] });
    let done = 0;
    for (const { id } of pending) {
      try {
        if ((await this.delete(id)).deleted) done++;
      } catch (err) {
        if (!(err instanceof AppError)) this.#log.error({ err, recordId: id }, 'retrying a deletion failed');
      }
    }
    return done;
  }
}
