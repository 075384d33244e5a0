import { ARTIFACT_STATUSES, BackupRecordEntity, BackupRecordCopyEntity } from '../db/entities/backup-record.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import { ReplicationRecordEntity, type ReplicationRecord } from '../db/entities/recovery-records.ts';
import { AppError } from '../http/app-error.ts';
import { errorText as message } from '../engine/index.ts';
import { withHealthyCopy, type CorruptCopy, type OpenedCopy } from './artifact-source.ts';
import { baseOf } from './chain-source.ts';
import type { BackupRecord } from '../db/entities/backup-record.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import { JobQueue } from './job-queue.ts';
import { failStale } from './run-lifecycle.ts';
import type { RecoveryDeps } from './recovery-deps.ts';
import { replicationAlert } from './recovery-alerts.ts';

/**
 * Copies an artifact to another target as a stream (no temp copy): the source copy's bytes
 * pass a length and SHA-256 check on their way into the destination's put, so a corrupt source
 * copy leaves nothing behind: it is marked corrupt and the next copy is read instead. A successful copy becomes one more copy of the
 * record (`origin: replica`): downloads, restores and verification fall back to it, and
 * retention and deletion remove it with the rest.
 */
export class ReplicationService {
  readonly #deps: RecoveryDeps;
  readonly #queue: JobQueue;

  constructor(deps: RecoveryDeps) {
    this.#deps = deps;
    this.#queue = new JobQueue(deps.config.maxConcurrent);
  }

  async request(backupRecordId: number, destTargetId: number, triggeredBy: string): Promise<ReplicationRecord> {
    const em = this.#deps.orm.em.fork();
    const backup = await em.findOne(BackupRecordEntity, { id: backupRecordId });
    if (!backup) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (!ARTIFACT_STATUSES.includes(backup.status))
      throw new AppError('REPLICATION_SOURCE_INVALID', {
        message: `A ${backup.status} record holds no artifact to replicate.`,
      });
    if (backup.backupKind === 'repository')
      throw new AppError('REPLICATION_SOURCE_INVALID', {
        message:
          'A repository record is a snapshot in a repository on each of its targets; add the target to the task instead.',
      });
    const dest = await em.findOne(StorageTargetEntity, { id: destTargetId });
    if (!dest)
      throw new AppError('REPLICATION_DEST_INVALID', { message: `Storage target ${destTargetId} does not exist.` });
    if (!dest.enabled) throw new AppError('REPLICATION_DEST_DISABLED');
    const held = await em.count(BackupRecordCopyEntity, {
      recordId: backupRecordId,
      storageTargetId: destTargetId,
      status: { $in: ['success', 'pending'] },
    });
    if (held > 0)
      throw new AppError('REPLICATION_DEST_INVALID', { message: `"${dest.name}" already holds this artifact.` });
    const record = em.create(ReplicationRecordEntity, {
      backupRecordId,
      taskId: backup.taskId,
      taskName: backup.taskName,
      destTargetId,
      destTargetName: dest.name,
      storagePath: backup.storagePath,
      checksum: backup.checksum,
      triggeredBy: triggeredBy.slice(0, 100),
      status: 'queued',
      masterId: this.#deps.masterId,
    });
    await em.flush();
    this.#queue.push(`replication-${record.id}`, (signal) => this.execute(record.id, signal).then(() => undefined));
    return record;
  }

  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stop(): Promise<void> {
    return this.#queue.stop();
  }

  async execute(id: number, signal: AbortSignal): Promise<ReplicationRecord> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOneOrFail(ReplicationRecordEntity, { id });
    record.status = 'running';
    record.startedAt = new Date();
    await em.flush();
    const corruptSeen: string[] = [];
    try {
      const backup = await em.findOneOrFail(BackupRecordEntity, { id: record.backupRecordId });
      const dest = await em.findOneOrFail(StorageTargetEntity, { id: record.destTargetId }, { populate: ['secrets'] });
      const onError = (text: string): void => {
        corruptSeen.push(text);
        this.#deps.logger.error({ replicationId: record.id, backupRecordId: backup.id }, text);
      };
      // A differential restores only with its full: the destination gets the full first when it lacks it.
      let baseCopied = '';
      if (backup.backupKind === 'differential') {
        const base = await baseOf(this.#deps, backup);
        const held = await em.count(BackupRecordCopyEntity, {
          recordId: base.id,
          storageTargetId: dest.id,
          status: { $in: ['success', 'pending'] },
        });
        if (held === 0) {
          await this.#copy(em, base, dest, signal, onError);
          baseCopied = `its full (record ${base.id}) was copied first; `;
        }
      }
      const { source, corrupt } = await this.#copy(em, backup, dest, signal, onError);
      record.sourceTargetId = source.targetId;
      record.sourceTargetName = source.targetName;
      if (corrupt.length > 0 || baseCopied)
        record.errorMessage =
          `${baseCopied}${corrupt.length > 0 ? `copied from "${source.targetName}"; ${corruptSeen.join('; ')}` : ''}`.slice(
            0,
            2000,
          );
      record.fileSize = backup.fileSize;
      record.status = 'success';
    } catch (err) {
      record.status = signal.aborted ? 'cancelled' : 'failed';
      record.errorMessage = message(err).slice(0, 2000);
    }
    record.completedAt = new Date();
    record.durationMs = record.completedAt.getTime() - (record.startedAt?.getTime() ?? record.completedAt.getTime());
    await em.flush();
    this.#deps.recoveryMetrics.observe('replication', record);
    const alert = replicationAlert(record);
    if (alert) await this.#deps.alerts.notify(alert);
    return record;
  }

  /**
   * One record's artifact onto `dest`: the copy's bytes pass its checksum guard into the
   * destination's atomic put (a corrupt source aborts the put, nothing is left behind, and the
   * next copy is read instead), then the replica copy is recorded.
   */
  async #copy(
    em: ReturnType<RecoveryDeps['orm']['em']['fork']>,
    backup: BackupRecord,
    dest: StorageTarget,
    signal: AbortSignal,
    onError: (text: string) => void,
  ): Promise<{ source: OpenedCopy; corrupt: CorruptCopy[] }> {
    const { copy: source, corrupt } = await withHealthyCopy(
      this.#deps,
      backup,
      (level, text) => {
        if (level === 'error') onError(text);
      },
      async (copy) => {
        const stored = await this.#deps.storageOpener.use(dest, (instance) =>
          instance.put(backup.storagePath, copy.stream, { size: backup.fileSize, signal }),
        );
        if (stored.size !== backup.fileSize)
          throw new Error(`the destination stored ${stored.size} bytes, expected ${backup.fileSize}`);
      },
      { exclude: [dest.id], signal },
    );
    em.create(BackupRecordCopyEntity, {
      recordId: backup.id,
      storageTargetId: dest.id,
      storageTargetName: dest.name,
      status: 'success',
      origin: 'replica',
      storagePath: backup.storagePath,
      fileSize: backup.fileSize,
      attempts: 1,
    });
    await em.flush();
    return { source, corrupt };
  }

  /** Replications of masters not in `live` (stopped, crashed, or this master's earlier process) are failed, and what they left on the destination removed. */
  async recover(live: number[]): Promise<number> {
    await this.#removeInterruptedCopies(live);
    return failStale(
      this.#deps.orm.em.fork(),
      ReplicationRecordEntity as never,
      'the master stopped while this replication was running; run it again',
      { masterId: { $nin: live } },
    );
  }

  /**
   * Start-up: a replication the master was killed in the middle of leaves its upload's temporary
   * object on the destination, or, killed between the upload and the copy row, a whole object no
   * copy points at. Both go, so the retry starts clean and nothing is stranded.
   */
  async #removeInterruptedCopies(live: number[]): Promise<void> {
    const em = this.#deps.orm.em.fork();
    for (const record of await em.find(ReplicationRecordEntity, { status: 'running', masterId: { $nin: live } })) {
      const dest = await em.findOne(StorageTargetEntity, { id: record.destTargetId }, { populate: ['secrets'] });
      if (!dest || record.storagePath === '') continue;
      const held = await em.count(BackupRecordCopyEntity, {
        recordId: record.backupRecordId,
        storageTargetId: dest.id,
        status: { $in: ['success', 'pending'] },
      });
      try {
        await this.#deps.storageOpener.use(dest, async (instance) => {
          if (held === 0) await instance.delete(record.storagePath);
          await instance.removeTemporaries?.(record.storagePath);
        });
      } catch (err) {
        this.#deps.logger.error(
          { err, replicationId: record.id, target: dest.name },
          'could not remove what an interrupted replication left on its destination',
        );
      }
    }
  }
}
