import type { MikroORM } from '@mikro-orm/core';
import { BackupRecordEntity, TERMINAL_STATUSES, type BackupRecord } from '../db/entities/backup-record.ts';
import { AppError } from '../http/app-error.ts';
import type { RemoteBackups } from './remote-backups.ts';
import type { BackupRuns } from './backup-runs.ts';
import type { RunStop } from '../backup/run-stop.ts';

/**
 * Stops one queued or running backup wherever it runs: on the master through its run queue,
 * on an agent through the master's half of the protocol. Used by the cancel route and by the
 * time limit.
 */
export class BackupCancel {
  readonly #orm: MikroORM;
  readonly #runs: BackupRuns;
  readonly #remote: RemoteBackups;

  constructor({ orm, backupRuns, remoteBackups }: { orm: MikroORM; backupRuns: BackupRuns; remoteBackups: RemoteBackups }) {
    this.#orm = orm;
    this.#runs = backupRuns;
    this.#remote = remoteBackups;
  }

  /** Resolves with the ended record; 404 for an unknown id, 409 when it had already ended. */
  async stop(recordId: number, stop: RunStop): Promise<BackupRecord> {
    const record = await this.#load(recordId);
    const ended = (r: BackupRecord) => new AppError('BACKUP_RECORD_NOT_ACTIVE', { message: `Backup record ${r.id} has already ended (${r.status}).` });
    if (TERMINAL_STATUSES.includes(record.status)) throw ended(record);
    const stopped = record.nodeId === 0 ? await this.#runs.stopLocal(recordId, stop) : await this.#remote.stop(recordId, stop);
    const after = await this.#load(recordId);
    // Neither queue held it and it is still open: queued by a master process that has since gone (it is queued again at the next start).
    if (!stopped && !TERMINAL_STATUSES.includes(after.status)) throw new AppError('BACKUP_RECORD_RUNNING', { message: `Backup record ${recordId} is ${after.status} in another master process; cancel it there.` });
    if (!stopped) throw ended(after);
    return after;
  }

  async #load(recordId: number): Promise<BackupRecord> {
    const record = await this.#orm.em.fork().findOne(BackupRecordEntity, { id: recordId });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    return record;
  }
}
