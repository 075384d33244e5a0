import type { MikroORM } from '@mikro-orm/core';
import { BackupRecordEntity, TERMINAL_STATUSES, type BackupRecord } from '../db/entities/backup-record.ts';
import { AppError } from '../http/app-error.ts';
import type { RemoteBackups } from './remote-backups.ts';
import type { BackupRuns } from './backup-runs.ts';
import { RunStop, type StopStatus } from '../engine/index.ts';
import type { Cluster } from '../db/cluster.ts';

/** How long a cancel waits for the master that runs the backup to stop it. */
const REMOTE_STOP_WAIT_MS = 30_000;

/**
 * Stops one queued or running backup wherever it runs: on this master through its run queue,
 * on another master by a notice to it (several masters on PostgreSQL: every master listens and
 * stops what it holds), on an agent through the master's half of the protocol. Used by the
 * cancel route and by the time limit.
 */
export class BackupCancel {
  readonly #orm: MikroORM;
  readonly #runs: BackupRuns;
  readonly #remote: RemoteBackups;

  readonly #cluster: Cluster;

  constructor({
    orm,
    backupRuns,
    remoteBackups,
    cluster,
  }: { orm: MikroORM; backupRuns: BackupRuns; remoteBackups: RemoteBackups; cluster: Cluster }) {
    this.#orm = orm;
    this.#runs = backupRuns;
    this.#remote = remoteBackups;
    this.#cluster = cluster;
  }

  /** Every master: a cancel asked on another master for a run this one holds. */
  listen(onError: (err: unknown) => void): void {
    if (!this.#cluster.shared) return;
    this.#cluster.listen('backplane_cancel', (payload) => {
      const { recordId, message, status } = JSON.parse(payload) as {
        recordId: number;
        message: string;
        status: StopStatus;
      };
      void this.#runs.stopLocal(recordId, new RunStop(message, status)).catch(onError);
    });
  }

  /** Asks the master holding the record to stop it; true once the record has ended. */
  async #stopElsewhere(record: BackupRecord, stop: RunStop): Promise<boolean> {
    if (!this.#cluster.shared || record.masterId === this.#cluster.masterId) return false;
    if (!(await this.#cluster.liveMasters()).includes(record.masterId)) return false;
    await this.#cluster.notify(
      'backplane_cancel',
      JSON.stringify({ recordId: record.id, message: stop.message, status: stop.status }),
    );
    for (const deadline = Date.now() + REMOTE_STOP_WAIT_MS; Date.now() < deadline; ) {
      if (TERMINAL_STATUSES.includes((await this.#load(record.id)).status)) return true;
      await new Promise((r) => setTimeout(r, 200));
    }
    return false;
  }

  /** Resolves with the ended record; 404 for an unknown id, 409 when it had already ended. */
  async stop(recordId: number, stop: RunStop): Promise<BackupRecord> {
    const record = await this.#load(recordId);
    const ended = (r: BackupRecord) =>
      new AppError('BACKUP_RECORD_NOT_ACTIVE', { message: `Backup record ${r.id} has already ended (${r.status}).` });
    if (TERMINAL_STATUSES.includes(record.status)) throw ended(record);
    const stopped =
      record.nodeId === 0
        ? (await this.#runs.stopLocal(recordId, stop)) || (await this.#stopElsewhere(record, stop))
        : await this.#remote.stop(recordId, stop);
    const after = await this.#load(recordId);
    // No master stopped it and it is still open: its master has gone (the leader settles its runs) or did not stop it in time.
    if (!stopped && !TERMINAL_STATUSES.includes(after.status))
      throw new AppError('BACKUP_RECORD_RUNNING', {
        message: `Backup record ${recordId} is ${after.status} on a master that did not stop it; try again shortly.`,
      });
    if (!stopped) throw ended(after);
    return after;
  }

  async #load(recordId: number): Promise<BackupRecord> {
    const record = await this.#orm.em.fork().findOne(BackupRecordEntity, { id: recordId });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    return record;
  }
}
