import { isAbsolute } from 'node:path';
import { Readable } from 'node:stream';
import {
  ARTIFACT_STATUSES,
  TERMINAL_STATUSES,
  BackupRecordEntity,
  type BackupRecord,
} from '../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { RestoreRecordEntity, type RestoreRecord } from '../db/entities/recovery-records.ts';
import { AppError } from '../http/app-error.ts';
import {
  restoreDatabase,
  restoreTargetOf,
  driverFor,
  checkDump,
  archivePath,
  stagedRestore,
  type Compression,
  SelectionMatch,
  nothingSelectedText,
  databaseOfEntry,
  isDumpArchive,
  restoreDumpArchive,
  type RunLog,
  type RunStop,
  restoreResticSnapshot,
} from '../engine/index.ts';
import { openStoredCopy, rawStream, withHealthyCopy, type OpenedCopy } from './artifact-source.ts';
import { baseOf, withHealthyChain } from './chain-source.ts';
import { withRepositorySnapshot } from './repository-source.ts';
import { loadManifest } from './stored-manifest.ts';
import { JobQueue } from './job-queue.ts';
import { placeRun } from '../agent-protocol/placement.ts';
import type { RestoreRecordPayload } from '../agent-protocol/wire.ts';
import { runLifecycle, failStale, settleStopped, stopQueuedJob } from './run-lifecycle.ts';
import { openDriver, human, type RecoveryDeps } from './recovery-deps.ts';
import { restoreAlert } from './recovery-alerts.ts';

export interface RestoreInput {
  /** File restores: an absolute directory to restore into; absent = the original locations. */
  targetPath?: string;
  /** Database restores: the database to restore into; absent = the task's database. */
  targetDatabase?: string;
  /** File restores: archive paths (as in the contents listing) to restore with their children. */
  selectedPaths?: string[];
  /** Records of several databases: the databases to restore (absent = all), each into its own name. */
  databases?: string[];
}

/**
 * Restores a record's artifact. The stored bytes are checked (length, SHA-256, age
 * authentication, decompression) while they stream, and a bad artifact is refused before
 * anything is overwritten: files are extracted into a staging folder and moved into place only
 * once the whole artifact checked out (one read); non-transactional database restores read and
 * check the whole artifact first, then read it again to restore.
 */
export class RestoreService {
  readonly #deps: RecoveryDeps;
  readonly #queue: JobQueue;

  constructor(deps: RecoveryDeps) {
    this.#deps = deps;
    this.#queue = new JobQueue(deps.config.maxConcurrent);
  }

  async request(backupRecordId: number, input: RestoreInput, triggeredBy: string): Promise<RestoreRecord> {
    const em = this.#deps.orm.em.fork();
    const backup = await em.findOne(BackupRecordEntity, { id: backupRecordId });
    if (!backup) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (!ARTIFACT_STATUSES.includes(backup.status))
      throw new AppError('RESTORE_SOURCE_INVALID', {
        message: `A ${backup.status} record holds no artifact to restore.`,
      });
    const selected = input.selectedPaths ?? [];
    const databases = [...new Set(input.databases ?? [])];
    if (backup.type === 'file') {
      if (databases.length > 0)
        throw new AppError('RESTORE_TARGET_INVALID', { message: 'databases applies to database records only.' });
      if (input.targetDatabase)
        throw new AppError('RESTORE_TARGET_INVALID', { message: 'targetDatabase applies to database records only.' });
      if (input.targetPath !== undefined && (!isAbsolute(input.targetPath) || input.targetPath.includes('\0')))
        throw new AppError('RESTORE_TARGET_INVALID', { message: 'targetPath must be an absolute directory.' });
      for (const p of selected)
        if (typeof archivePath(p) !== 'string')
          throw new AppError('RESTORE_TARGET_INVALID', {
            message: `selectedPaths: ${JSON.stringify(p)} is not an archive path.`,
          });
      if (selected.length > 0 && backup.hasManifest) {
        // Known up front from the manifest: a selection the archive does not hold restores nothing.
        const match = new SelectionMatch(selected.map((p) => archivePath(p) as string));
        for (const path of (await loadManifest(this.#deps.orm, backup.id)).keys()) match.see(path);
        const missing = match.unmatched();
        if (missing.length > 0)
          throw new AppError('RESTORE_NOTHING_SELECTED', {
            message: `${nothingSelectedText('selectedPaths', missing)}.`,
          });
      }
    } else {
      if (input.targetPath !== undefined || selected.length > 0)
        throw new AppError('RESTORE_TARGET_INVALID', {
          message: 'targetPath and selectedPaths apply to file records only.',
        });
      const task = await em.findOne(BackupTaskEntity, { id: backup.taskId });
      if (!task)
        throw new AppError('RESTORE_SOURCE_INVALID', {
          message: 'The task that made this record was deleted; its database connection is unknown.',
        });
      if (
        input.targetDatabase !== undefined &&
        !/^[^\0/\\]{1,255}$/.test(input.targetDatabase) &&
        !(backup.type === 'sqlite' && isAbsolute(input.targetDatabase))
      ) {
        throw new AppError('RESTORE_TARGET_INVALID', { message: 'targetDatabase is not a valid database name.' });
      }
      await this.#checkDatabaseSelection(backup, databases, input.targetDatabase);
    }
    const fields = {
      backupRecordId,
      taskId: backup.taskId,
      taskName: backup.taskName,
      type: backup.type,
      nodeId: backup.nodeId,
      targetPath: input.targetPath ?? '',
      targetDatabase: input.targetDatabase ?? '',
      selectedPaths: JSON.stringify(backup.type === 'file' ? selected : databases),
      triggeredBy: triggeredBy.slice(0, 100),
      status: 'queued' as const,
    };
    if (backup.nodeId !== 0) {
      // A node's backup restores on that node, where its paths and databases are.
      await placeRun(
        em,
        { name: backup.taskName, nodeId: backup.nodeId, nodeLabel: '' },
        { offlineSeconds: this.#deps.config.nodeOfflineSeconds, masterSlots: this.#deps.config.maxConcurrent },
      );
      return em.transactional(async (tx) => {
        const record = tx.create(RestoreRecordEntity, fields);
        await tx.flush();
        this.#deps.commandQueue.add(tx, {
          nodeId: backup.nodeId,
          type: 'restore_record',
          payload: { restoreId: record.id } satisfies RestoreRecordPayload,
          recordKind: 'restore',
          recordId: record.id,
        });
        await tx.flush();
        return record;
      });
    }
    const record = em.create(RestoreRecordEntity, { ...fields, masterId: this.#deps.masterId });
    await em.flush();
    this.#queue.push(`restore-${record.id}`, (signal) => this.execute(record.id, signal).then(() => undefined));
    return record;
  }

  /**
   * Ends a queued or running restore `cancelled`: a queued one never starts, one running here is
   * aborted (its tool processes killed) and waited for. One on an agent ends at once; the agent
   * learns it from the refusal of its next update and stops. What a restore had already written
   * stays, as after a failure (database restores that can be atomic are rolled back).
   */
  async cancel(id: number, stop: RunStop): Promise<RestoreRecord> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOne(RestoreRecordEntity, { id });
    if (!record) throw new AppError('RESTORE_RECORD_NOT_FOUND');
    const ended = (r: RestoreRecord) =>
      new AppError('RESTORE_RECORD_NOT_ACTIVE', { message: `Restore ${id} has already ended (${r.status}).` });
    if (TERMINAL_STATUSES.includes(record.status)) throw ended(record);
    if (record.nodeId !== 0) {
      for (const c of await this.#deps.commandQueue.openFor('restore', id))
        if (c.status === 'pending') await this.#deps.commandQueue.settle(c.id, 'failed', stop.message);
      await settleStopped(em, record, this.#deps.restoreLogs, stop);
      this.#deps.recoveryMetrics.observe('restore', record);
      void this.#deps.alerts.notify(restoreAlert(record));
      return record;
    }
    return stopQueuedJob(em, this.#queue, `restore-${id}`, record, {
      hub: this.#deps.restoreLogs,
      stop,
      ended,
      publish: (r) => {
        this.#deps.recoveryMetrics.observe('restore', r);
        void this.#deps.alerts.notify(restoreAlert(r));
      },
      reload: () => this.#deps.orm.em.fork().findOneOrFail(RestoreRecordEntity, { id }),
    });
  }

  /** A several-database record restores all its databases or those chosen; one only under another name. */
  async #checkDatabaseSelection(
    backup: BackupRecord,
    databases: string[],
    targetDatabase: string | undefined,
  ): Promise<void> {
    if (!isDumpArchive(backup.fileName)) {
      if (databases.length > 0)
        throw new AppError('RESTORE_TARGET_INVALID', {
          message: 'databases applies to records of several databases; this record holds one.',
        });
      return;
    }
    if (targetDatabase !== undefined && databases.length !== 1) {
      throw new AppError('RESTORE_TARGET_INVALID', {
        message: 'This record holds several databases: targetDatabase needs exactly one of them chosen in databases.',
      });
    }
    if (databases.length === 0 || !backup.hasManifest) return;
    const driver = driverFor(this.#deps.databaseDrivers.list(), backup.type) ?? {};
    const held = new Set(
      [...(await loadManifest(this.#deps.orm, backup.id)).keys()].map((name) => databaseOfEntry(name, driver)),
    );
    const missing = databases.filter((name) => !held.has(name));
    if (missing.length > 0)
      throw new AppError('RESTORE_NOTHING_SELECTED', { message: `${nothingSelectedText('databases', missing)}.` });
  }

  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stop(): Promise<void> {
    return this.#queue.stop();
  }

  async execute(id: number, signal: AbortSignal): Promise<RestoreRecord> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOneOrFail(RestoreRecordEntity, { id });
    await runLifecycle(em, record, this.#deps.restoreLogs, signal, async (log) => {
      const backup = await em.findOne(BackupRecordEntity, { id: record.backupRecordId });
      if (!backup) throw new Error('the backup record was deleted');
      log('info', `restoring ${backup.fileName} (record ${backup.id}, ${human(backup.fileSize)})`);
      if (backup.type === 'file') await this.#restoreFiles(record, backup, log, signal);
      else await this.#restoreDatabase(em, record, backup, log, signal);
    });
    this.#deps.recoveryMetrics.observe('restore', record);
    void this.#deps.alerts.notify(restoreAlert(record));
    return record;
  }

  /** Remembers which copy serves the restore; the bytes count restarts with each read. */
  #readFrom(record: RestoreRecord, copy: OpenedCopy, backup: BackupRecord, decompressed = true): Readable {
    record.sourceTargetId = copy.targetId;
    record.sourceTargetName = copy.targetName;
    record.bytes = 0;
    return rawStream(
      copy,
      backup,
      this.#deps.ageKeys.identity,
      (n) => {
        record.bytes += n;
      },
      decompressed,
    );
  }

  /**
   * The check pass: `check` reads the whole artifact from the first copy that is intact (a
   * corrupt copy is marked, logged and the next one read); returns the copy that passed, which
   * the write pass then reads, so what is written is what was checked.
   */
  async #checkPass<T>(
    record: RestoreRecord,
    backup: BackupRecord,
    log: RunLog,
    signal: AbortSignal,
    check: (raw: Readable) => Promise<T>,
  ): Promise<{ value: T; copyId: number }> {
    const { value, copy } = await withHealthyCopy(
      this.#deps,
      backup,
      log,
      (c) => check(this.#readFrom(record, c, backup)),
      { signal },
    );
    return { value, copyId: copy.copyId };
  }

  /** The write pass: a checked raw stream of the one copy the check pass chose. */
  async #open(record: RestoreRecord, backup: BackupRecord, log: RunLog, copyId: number): Promise<Readable> {
    const copy = await openStoredCopy(this.#deps.orm, this.#deps.storageOpener, backup, { copyId });
    log('info', `reading from "${copy.targetName}" again to write`);
    return this.#readFrom(record, copy, backup);
  }

  /**
   * One read: the copy streams into a staging folder while it is checked; the staged entries move
   * into place only once the artifact proved whole (staged-restore.ts). A corrupt copy is marked
   * and the next one read, as by every reader.
   */
  async #restoreFiles(record: RestoreRecord, backup: BackupRecord, log: RunLog, signal: AbortSignal): Promise<void> {
    const manifest = backup.hasManifest ? await loadManifest(this.#deps.orm, backup.id) : undefined;
    const selected = JSON.parse(record.selectedPaths) as string[];
    const wanted = selected.map((p) => archivePath(p)).filter((p): p is string => typeof p === 'string');
    const root = record.targetPath || '/';
    log(
      'info',
      `extracting into a staging folder in ${root}${selected.length ? ` (only ${selected.join(', ')})` : ''};` +
        ' nothing is replaced before the whole artifact is checked',
    );
    if (backup.backupKind === 'repository') {
      const { value: result, copy } = await withRepositorySnapshot(
        this.#deps,
        backup,
        log,
        (opened, c) =>
          stagedRestore(Readable.from([]), {
            root,
            selectedPaths: selected,
            signal,
            extract: (staging) => restoreResticSnapshot(opened.restic, c.snapshotId, staging, wanted, manifest),
          }),
        { signal },
      );
      record.sourceTargetId = copy.storageTargetId;
      record.sourceTargetName = copy.storageTargetName;
      record.entries = result.entries;
      record.bytes = result.bytes;
      log(
        'info',
        `restored ${result.entries} entries, ${human(result.bytes)} from snapshot ${copy.snapshotId.slice(0, 8)}`,
      );
      return;
    }
    if (backup.backupKind === 'differential') {
      const base = await baseOf(this.#deps, backup);
      log('info', `a differential: its full (record ${base.id}) is applied first, then the differential`);
      const match = new SelectionMatch(wanted);
      const result = await withHealthyChain(
        this.#deps,
        backup,
        base,
        log,
        (links) => {
          record.bytes = 0;
          return stagedRestore(links.source, {
            root,
            selectedPaths: selected,
            manifest,
            chain: [links.base],
            signal,
            onName: (path) => match.see(path),
            onWarning: (m) => log('warn', m),
            beforeSwap: () => {
              if (match.unmatched().length > 0)
                throw new Error(nothingSelectedText('selectedPaths', match.unmatched()));
            },
          });
        },
        {
          signal,
          onStoredBytes: (n) => {
            record.bytes += n;
          },
        },
      );
      log('info', `chain checked: ${result.checked.entries} entries, ${human(result.checked.bytes)}`);
      record.entries = selected.length === 0 && manifest ? manifest.size : result.entries;
      log('info', `restored ${record.entries} entries as of record ${backup.id}`);
      return;
    }
    const { value: result } = await withHealthyCopy(
      this.#deps,
      backup,
      log,
      (copy) => {
        const match = new SelectionMatch(wanted);
        const source = {
          compression: backup.compression as Compression,
          open: (decompressed: boolean) => this.#readFrom(record, copy, backup, decompressed),
        };
        return stagedRestore(source, {
          root,
          selectedPaths: selected,
          manifest,
          signal,
          onName: (path) => match.see(path),
          onWarning: (m) => log('warn', m),
          beforeSwap: () => {
            if (match.unmatched().length > 0) throw new Error(nothingSelectedText('selectedPaths', match.unmatched()));
          },
        });
      },
      { signal },
    );
    log(
      'info',
      `artifact checked: ${result.checked.entries} entries, ${human(result.checked.bytes)}; checksum ${backup.checksum}`,
    );
    record.entries = result.entries;
    log('info', `restored ${result.entries} entries, ${human(result.bytes)}`);
  }

  async #restoreDatabase(
    em: ReturnType<RecoveryDeps['orm']['em']['fork']>,
    record: RestoreRecord,
    backup: BackupRecord,
    log: RunLog,
    signal: AbortSignal,
  ): Promise<void> {
    const task = await em.findOne(BackupTaskEntity, { id: backup.taskId }, { populate: ['dbPassword'] });
    if (!task) throw new Error('the task that made this record was deleted; its database connection is unknown');
    const { type, instance } = await openDriver(this.#deps, task);
    if (isDumpArchive(backup.fileName)) {
      // Its first read checks every dump before any database is touched, so a corrupt copy found
      // there is followed by the next copy; the restore pass reads the copy that checked out.
      const { value: restored } = await withHealthyCopy(
        this.#deps,
        backup,
        log,
        (copy) => {
          let first = true;
          const open = async (): Promise<Readable> => {
            if (!first) return this.#open(record, backup, log, copy.copyId);
            first = false;
            return this.#readFrom(record, copy, backup);
          };
          return restoreDumpArchive(open, {
            driver: { type, instance },
            selected: JSON.parse(record.selectedPaths) as string[],
            targetDatabase: record.targetDatabase,
            restoreId: record.id,
            log,
            signal,
          });
        },
        { signal },
      );
      log('info', `restored ${restored.length} database(s): ${restored.join(', ')}`);
      return;
    }
    const target = restoreTargetOf(type, task, record.targetDatabase);
    if (!target) throw new Error('no database to restore into');
    if (!type.atomicRestore) {
      // The tool commits as it goes: check the whole artifact before it touches the database.
      const { value: checked, copyId } = await this.#checkPass(record, backup, log, signal, (raw) =>
        checkDump(raw, driverFor(this.#deps.databaseDrivers.list(), task.type)),
      );
      log('info', `artifact checked: ${human(checked.bytes)} of dump; checksum ${backup.checksum}`);
      if (signal.aborted) throw signal.reason;
      await restoreDatabase({ type, instance }, target, record.id, () => this.#open(record, backup, log, copyId), log);
    } else {
      // An atomic restore leaves the target untouched when its stream fails, so a corrupt copy
      // found while restoring is simply followed by the next one.
      await withHealthyCopy(
        this.#deps,
        backup,
        log,
        (copy) =>
          restoreDatabase(
            { type, instance },
            target,
            record.id,
            () => Promise.resolve(this.#readFrom(record, copy, backup)),
            log,
          ),
        { signal },
      );
    }
    log('info', `restored ${human(record.bytes)} of artifact into ${target}`);
  }

  /**
   * Restores of masters not in `live` (stopped, crashed, or this master's earlier process) are
   * failed (the target may be partly restored; the log says where).
   */
  async recover(live: number[]): Promise<number> {
    return failStale(
      this.#deps.orm.em.fork(),
      RestoreRecordEntity as never,
      'the master stopped while this restore was running; run it again',
      { nodeId: 0, masterId: { $nin: live } },
    );
  }
}
