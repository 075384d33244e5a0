import { mkdir, rm, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  ARTIFACT_STATUSES,
  TERMINAL_STATUSES,
  BackupRecordEntity,
  type BackupRecord,
} from '../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { VerifyRecordEntity, type VerifyRecord } from '../db/entities/recovery-records.ts';
import { AppError } from '../http/app-error.ts';
import {
  driverFor,
  checkDump,
  checkTar,
  safeExtract,
  stagedRestore,
  isDumpArchive,
  checkDumpArchive,
  forEachDump,
  type RunLog,
  type RunStop,
  restoreResticSnapshot,
} from '../engine/index.ts';
import { rawStream, withHealthyCopy } from './artifact-source.ts';
import { baseOf, withHealthyChain } from './chain-source.ts';
import { withRepositorySnapshot } from './repository-source.ts';
import { loadManifest } from './stored-manifest.ts';
import { JobQueue } from './job-queue.ts';
import { runLifecycle, failStale, stopQueuedJob } from './run-lifecycle.ts';
import { openDriver, human, type RecoveryDeps } from './recovery-deps.ts';
import { verifyAlert, rtoAlert } from './recovery-alerts.ts';
import type { EntityManager } from '@mikro-orm/core';

export type VerifyMode = 'quick' | 'deep';

/**
 * A deep verification's scratch database, derived from the record (its id and start time, which
 * is saved before the work begins), so start-up can drop what a crash left; the start time keeps
 * two installations sharing a database server apart.
 */
export function sandboxDatabase(record: { id: number; startedAt?: Date | null }, dump?: number): string {
  // Whole seconds: what every database column keeps of a time.
  const base = `bp_verify_${record.id}_${Math.floor((record.startedAt?.getTime() ?? 0) / 1000).toString(36)}`;
  return dump === undefined ? base : `${base}_${dump}`;
}

/**
 * Verification. `quick` proves the stored bytes are intact and decode: length and SHA-256,
 * age authentication, decompression, and the structure (every tar entry against the manifest;
 * a dump's header and completion trailer). `deep` proves they restore: into a sandbox (a
 * scratch folder, a scratch database, a temp SQLite file), compared with what was recorded at
 * backup time (the manifest's sizes; per-table row counts), then removed. Deep records how
 * long the sandbox restore took: the measured recovery time. A corrupt copy is followed by the
 * next one; the record then ends `partial`, naming the corrupt copy (the copy itself is marked).
 */
export class VerifyService {
  readonly #deps: RecoveryDeps;
  readonly #queue: JobQueue;

  constructor(deps: RecoveryDeps) {
    this.#deps = deps;
    this.#queue = new JobQueue(deps.config.maxConcurrent);
  }

  async request(backupRecordId: number, mode: VerifyMode, triggeredBy: string): Promise<VerifyRecord> {
    const em = this.#deps.orm.em.fork();
    const backup = await em.findOne(BackupRecordEntity, { id: backupRecordId });
    if (!backup) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    if (!ARTIFACT_STATUSES.includes(backup.status))
      throw new AppError('VERIFY_SOURCE_INVALID', {
        message: `A ${backup.status} record holds no artifact to verify.`,
      });
    const record = em.create(VerifyRecordEntity, {
      backupRecordId,
      taskId: backup.taskId,
      taskName: backup.taskName,
      type: backup.type,
      nodeId: backup.nodeId,
      mode,
      triggeredBy: triggeredBy.slice(0, 100),
      status: 'queued',
      masterId: this.#deps.masterId,
    });
    await em.flush();
    this.#queue.push(`verify-${record.id}`, (signal) => this.execute(record.id, signal).then(() => undefined));
    return record;
  }

  /** The newest successful record of the task. */
  async requestForTask(taskId: number, mode: VerifyMode, triggeredBy: string): Promise<VerifyRecord> {
    const em = this.#deps.orm.em.fork();
    if (!(await em.findOne(BackupTaskEntity, { id: taskId }))) throw new AppError('BACKUP_TASK_NOT_FOUND');
    const newest = await em.findOne(
      BackupRecordEntity,
      { taskId, status: 'success', deleteRequestedAt: null },
      { orderBy: { id: 'desc' } },
    );
    if (!newest) throw new AppError('VERIFY_NO_SOURCE');
    return this.request(newest.id, mode, triggeredBy);
  }

  idle(): Promise<void> {
    return this.#queue.idle();
  }

  stop(): Promise<void> {
    return this.#queue.stop();
  }

  async execute(id: number, signal: AbortSignal): Promise<VerifyRecord> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOneOrFail(VerifyRecordEntity, { id });
    await runLifecycle(em, record, this.#deps.verifyLogs, signal, async (log) => {
      const backup = await em.findOne(BackupRecordEntity, { id: record.backupRecordId });
      if (!backup) throw new Error('the backup record was deleted');
      log('info', `${record.mode} verification of ${backup.fileName} (record ${backup.id})`);
      if (backup.backupKind === 'repository') {
        record.summary = (await this.#repository(record, backup, log, signal)).slice(0, 500);
        log('info', record.summary);
        return undefined;
      }
      if (record.mode === 'deep' && backup.backupKind === 'differential') {
        record.summary = (await this.#deepChain(record, backup, log, signal)).slice(0, 500);
        log('info', record.summary);
        return undefined;
      }
      // A corrupt copy is marked, logged and followed by the next; the verification still ends
      // `partial` then, since it found a real problem.
      const { value: summary, corrupt } = await withHealthyCopy(
        this.#deps,
        backup,
        log,
        async (copy) => {
          record.sourceTargetId = copy.targetId;
          record.sourceTargetName = copy.targetName;
          // The decoded stream is opened only when its consumer is ready (a deep sandbox database
          // takes time to create; a stream failing before anyone reads it would go unnoticed).
          let raw: Readable | undefined;
          const openRaw = (): Readable => (raw = rawStream(copy, backup, this.#deps.ageKeys.identity));
          try {
            return record.mode === 'deep'
              ? await this.#deep(em, record, backup, openRaw, log, signal)
              : await this.#quick(backup, openRaw());
          } finally {
            raw?.destroy();
            copy.stream.destroy();
          }
        },
        { signal },
      );
      record.summary = summary.slice(0, 500);
      log('info', summary);
      if (corrupt.length > 0) {
        return {
          partial: `${corrupt.map((c) => `the copy on "${c.targetName}" is corrupt (${c.why})`).join('; ')}; the copy on "${record.sourceTargetName}" verified`,
        };
      }
      return undefined;
    });
    await this.#alert(em, record);
    return record;
  }

  /** The verification's alert, and `rto_exceeded` when a deep one measured a restore slower than the task's objective. */
  async #alert(em: EntityManager, record: VerifyRecord): Promise<void> {
    this.#deps.recoveryMetrics.observe('verify', record);
    await this.#deps.alerts.notify(verifyAlert(record));
    const task = await em.findOne(BackupTaskEntity, { id: record.taskId }, { fields: ['rtoMinutes'] });
    const rto = rtoAlert(record, task?.rtoMinutes ?? 0);
    if (rto) await this.#deps.alerts.notify(rto);
  }

  /** Ends a queued or running verification `cancelled` (a running one is aborted and waited for; its sandbox is removed as after a failure). */
  async cancel(id: number, stop: RunStop): Promise<VerifyRecord> {
    const em = this.#deps.orm.em.fork();
    const record = await em.findOne(VerifyRecordEntity, { id });
    if (!record) throw new AppError('VERIFY_RECORD_NOT_FOUND');
    const ended = (r: VerifyRecord) =>
      new AppError('VERIFY_RECORD_NOT_ACTIVE', { message: `Verification ${id} has already ended (${r.status}).` });
    if (TERMINAL_STATUSES.includes(record.status)) throw ended(record);
    return stopQueuedJob(em, this.#queue, `verify-${id}`, record, {
      hub: this.#deps.verifyLogs,
      stop,
      ended,
      publish: (r) => {
        this.#deps.recoveryMetrics.observe('verify', r);
        void this.#deps.alerts.notify(verifyAlert(r));
      },
      reload: () => this.#deps.orm.em.fork().findOneOrFail(VerifyRecordEntity, { id }),
    });
  }

  async #quick(backup: BackupRecord, raw: NodeJS.ReadableStream): Promise<string> {
    const checksum = `${human(backup.fileSize)} stored, sha256 ${backup.checksum} matches`;
    if (backup.type === 'file') {
      const manifest = backup.hasManifest ? await loadManifest(this.#deps.orm, backup.id) : undefined;
      // A differential's archive holds what changed; its manifest lists the whole tree.
      const differential = backup.backupKind === 'differential';
      const r = await checkTar(raw as never, manifest, undefined, differential);
      const of = differential ? `, the changes since full ${backup.baseRecordId},` : '';
      return `quick: ${checksum}; ${r.entries} tar entries${of} (${human(r.bytes)}) ${manifest ? 'match the manifest' : 'read (no manifest stored)'}`;
    }
    if (isDumpArchive(backup.fileName)) {
      const manifest = backup.hasManifest ? await loadManifest(this.#deps.orm, backup.id) : undefined;
      const r = await checkDumpArchive(
        raw as never,
        driverFor(this.#deps.databaseDrivers.list(), backup.type),
        manifest,
      );
      return `quick: ${checksum}; the dumps of ${r.databases.join(', ')} (${human(r.bytes)}) each have their header and completion trailer`;
    }
    const r = await checkDump(raw as never, driverFor(this.#deps.databaseDrivers.list(), backup.type));
    return `quick: ${checksum}; dump of ${human(r.bytes)} has its header and completion trailer`;
  }

  async #deep(
    em: ReturnType<RecoveryDeps['orm']['em']['fork']>,
    record: VerifyRecord,
    backup: BackupRecord,
    openRaw: () => Readable,
    log: RunLog,
    signal: AbortSignal,
  ): Promise<string> {
    const sandbox = join(this.#deps.config.dataDir, 'tmp', `verify-${record.id}`);
    await rm(sandbox, { recursive: true, force: true });
    await mkdir(sandbox, { recursive: true });
    const started = Date.now();
    try {
      if (backup.type === 'file') {
        const result = await safeExtract(openRaw(), { root: sandbox, onWarning: (m) => log('warn', m), signal });
        record.restoreMs = Date.now() - started;
        const mismatch = backup.hasManifest
          ? await this.#compareTree(sandbox, await loadManifest(this.#deps.orm, backup.id))
          : [];
        if (mismatch.length > 0)
          throw new Error(`the restored tree differs from the manifest: ${mismatch.slice(0, 5).join('; ')}`);
        return (
          `deep: restored ${result.entries} entries (${human(result.bytes)}) into a sandbox` +
          ` in ${(record.restoreMs / 1000).toFixed(1)} s; every file matches the manifest`
        );
      }
      const task = await em.findOne(BackupTaskEntity, { id: backup.taskId }, { populate: ['dbPassword'] });
      if (!task) throw new Error('the task that made this record was deleted; no database server to restore into');
      const { type, instance } = await openDriver(this.#deps, task);
      if (isDumpArchive(backup.fileName))
        return await this.#deepArchive(record, backup, { type, instance }, openRaw, log, started);
      let database: string;
      if (type.databaseNames === 'none') {
        database = join(sandbox, 'verify.db');
      } else {
        if (!instance.ensureDatabase || !instance.dropDatabase)
          throw new Error(`the ${type.type} driver cannot create sandbox databases`);
        database = sandboxDatabase(record);
        await instance.ensureDatabase(database);
      }
      try {
        await instance.restore(openRaw(), { database });
        record.restoreMs = Date.now() - started;
        const stats = instance.tableStats ? await instance.tableStats(database) : undefined;
        const expected = backup.sourceStats
          ? (JSON.parse(backup.sourceStats) as { tables?: Record<string, number> }).tables
          : undefined;
        if (stats && expected) {
          const diffs = Object.keys({ ...expected, ...stats })
            .filter((t) => expected[t] !== stats[t])
            .map((t) => `${t}: ${stats[t] ?? 'missing'} rows, ${expected[t] ?? 'none'} at backup time`);
          if (diffs.length > 0) throw new Error(`restored row counts differ: ${diffs.slice(0, 5).join('; ')}`);
        }
        const tables = stats ? Object.keys(stats).length : 0;
        const rows = stats ? Object.values(stats).reduce((a, b) => a + b, 0) : 0;
        return (
          `deep: restored into a sandbox database in ${(record.restoreMs / 1000).toFixed(1)} s; ${tables} tables, ${rows} rows` +
          (expected ? ', equal to the counts at backup time' : '')
        );
      } finally {
        if (type.databaseNames !== 'none')
          await instance
            .dropDatabase?.(database)
            .catch((err: unknown) => log('warn', `sandbox database ${database} could not be dropped: ${String(err)}`));
      }
    } finally {
      await rm(sandbox, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * A repository record: quick is `restic check` of the repository (its structure and indexes);
   * deep also reads a tenth of the packs (`--read-data-subset=10%`), restores the snapshot into a
   * sandbox and compares the tree with the record's file list.
   */
  async #repository(record: VerifyRecord, backup: BackupRecord, log: RunLog, signal: AbortSignal): Promise<string> {
    const sandbox = join(this.#deps.config.dataDir, 'tmp', `verify-${record.id}`);
    try {
      const { value, copy } = await withRepositorySnapshot(
        this.#deps,
        backup,
        log,
        async (opened, c) => {
          await opened.restic.unlock(); // stale locks only: a killed restic's would fail the check
          const checked = await opened.restic.check(record.mode === 'deep' ? { readDataSubset: '10%' } : {});
          if (!checked.ok) throw new Error(`restic check failed: ${checked.error.message}`);
          if (record.mode !== 'deep') return 'quick: restic check of the repository passed';
          await rm(sandbox, { recursive: true, force: true });
          await mkdir(sandbox, { recursive: true });
          const manifest = backup.hasManifest ? await loadManifest(this.#deps.orm, backup.id) : undefined;
          const started = Date.now();
          const restored = await restoreResticSnapshot(opened.restic, c.snapshotId, sandbox, [], manifest);
          record.restoreMs = Date.now() - started;
          const mismatch = manifest ? await this.#compareTree(sandbox, manifest) : [];
          if (mismatch.length > 0)
            throw new Error(`the restored tree differs from the manifest: ${mismatch.slice(0, 5).join('; ')}`);
          return (
            `deep: restic check read 10% of the packs; snapshot restored into a sandbox (${restored.entries} entries,` +
            ` ${human(restored.bytes)}) in ${(record.restoreMs / 1000).toFixed(1)} s; every file matches the manifest`
          );
        },
        { signal },
      );
      record.sourceTargetId = copy.storageTargetId;
      record.sourceTargetName = copy.storageTargetName;
      return value;
    } finally {
      await rm(sandbox, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * A differential, deeply: its full and then itself restored into a sandbox folder as a restore
   * does (chain-source.ts, staged-restore.ts), and the tree compared with its manifest.
   */
  async #deepChain(record: VerifyRecord, backup: BackupRecord, log: RunLog, signal: AbortSignal): Promise<string> {
    const sandbox = join(this.#deps.config.dataDir, 'tmp', `verify-${record.id}`);
    await rm(sandbox, { recursive: true, force: true });
    await mkdir(sandbox, { recursive: true });
    const started = Date.now();
    try {
      const base = await baseOf(this.#deps, backup);
      const manifest = backup.hasManifest ? await loadManifest(this.#deps.orm, backup.id) : undefined;
      const result = await withHealthyChain(
        this.#deps,
        backup,
        base,
        log,
        (links) =>
          stagedRestore(links.source, {
            root: sandbox,
            manifest,
            chain: [links.base],
            signal,
            onWarning: (m) => log('warn', m),
          }),
        { signal },
      );
      record.restoreMs = Date.now() - started;
      const mismatch = manifest ? await this.#compareTree(sandbox, manifest) : [];
      if (mismatch.length > 0)
        throw new Error(`the restored tree differs from the manifest: ${mismatch.slice(0, 5).join('; ')}`);
      return (
        `deep: restored full ${base.id} and this differential (${result.checked.entries} archive entries,` +
        ` ${human(result.checked.bytes)}) into a sandbox in ${(record.restoreMs / 1000).toFixed(1)} s;` +
        ` every file matches the manifest`
      );
    } finally {
      await rm(sandbox, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /**
   * A several-database artifact: each dump restored into its own sandbox database, its row
   * counts compared with that database's at backup time, the sandbox dropped; one read.
   */
  async #deepArchive(
    record: VerifyRecord,
    backup: BackupRecord,
    { type, instance }: Awaited<ReturnType<typeof openDriver>>,
    openRaw: () => Readable,
    log: RunLog,
    started: number,
  ): Promise<string> {
    if (!instance.ensureDatabase || !instance.dropDatabase)
      throw new Error(`the ${type.type} driver cannot create sandbox databases`);
    const expected = backup.sourceStats
      ? (JSON.parse(backup.sourceStats) as { databases?: Record<string, Record<string, number>> }).databases
      : undefined;
    const restored: string[] = [];
    const diffs: string[] = [];
    let tables = 0;
    let rows = 0;
    await forEachDump(openRaw(), type, async (database, name, body) => {
      if (database === undefined)
        throw new Error(`the archive holds ${JSON.stringify(name)}, which is not a database dump`);
      const sandbox = sandboxDatabase(record, restored.length);
      await instance.ensureDatabase!(sandbox);
      try {
        await instance.restore(body, { database: sandbox });
        restored.push(database);
        const stats = instance.tableStats ? await instance.tableStats(sandbox) : undefined;
        const before = expected?.[database];
        if (stats && before) {
          for (const t of Object.keys({ ...before, ...stats }))
            if (before[t] !== stats[t])
              diffs.push(`${database}: ${t}: ${stats[t] ?? 'missing'} rows, ${before[t] ?? 'none'} at backup time`);
        }
        tables += stats ? Object.keys(stats).length : 0;
        rows += stats ? Object.values(stats).reduce((a, b) => a + b, 0) : 0;
      } finally {
        await instance.dropDatabase!(sandbox).catch((err: unknown) =>
          log('warn', `sandbox database ${sandbox} could not be dropped: ${String(err)}`),
        );
      }
    });
    record.restoreMs = Date.now() - started;
    if (restored.length === 0) throw new Error('the archive holds no database dump');
    for (const database of Object.keys(expected ?? {}))
      if (!restored.includes(database)) diffs.push(`${database}: its dump is missing from the archive`);
    if (diffs.length > 0) throw new Error(`restored row counts differ: ${diffs.slice(0, 5).join('; ')}`);
    return (
      `deep: restored ${restored.length} databases (${restored.join(', ')}) into sandbox databases` +
      ` in ${(record.restoreMs / 1000).toFixed(1)} s; ${tables} tables, ${rows} rows` +
      (expected ? ', equal to the counts at backup time' : '')
    );
  }

  /** Files of the manifest missing or of another size in the restored tree. */
  async #compareTree(root: string, manifest: Map<string, number>): Promise<string[]> {
    const problems: string[] = [];
    for (const [path, size] of manifest) {
      const st = await lstat(join(root, path)).catch(() => undefined);
      if (!st) problems.push(`${path} is missing`);
      else if (size >= 0 && st.isFile() && st.size !== size)
        problems.push(`${path} has ${st.size} bytes, expected ${size}`);
    }
    return problems;
  }

  /**
   * Verifications of masters not in `live` (stopped, crashed, or this master's earlier process) are failed, and the sandbox databases a deep one
   * may have left on the task's server are dropped (their names derive from the record id). The
   * sandbox folders live under the data dir's scratch folder, which start-up empties.
   */
  async recover(live: number[]): Promise<number> {
    const em = this.#deps.orm.em.fork();
    const stale = await em.find(VerifyRecordEntity, {
      status: 'running',
      mode: 'deep',
      type: { $ne: 'file' },
      masterId: { $nin: live },
    });
    for (const record of stale) {
      await this.#dropSandboxes(em, record).catch((err: unknown) =>
        this.#deps.logger.warn(
          { err, verifyRecordId: record.id },
          'sandbox databases of an interrupted deep verification could not be dropped',
        ),
      );
    }
    return failStale(
      em,
      VerifyRecordEntity as never,
      'the master stopped while this verification was running; run it again',
      { masterId: { $nin: live } },
    );
  }

  async #dropSandboxes(em: ReturnType<RecoveryDeps['orm']['em']['fork']>, record: VerifyRecord): Promise<void> {
    const backup = await em.findOne(BackupRecordEntity, { id: record.backupRecordId });
    const task = backup
      ? await em.findOne(BackupTaskEntity, { id: backup.taskId }, { populate: ['dbPassword'] })
      : null;
    if (!backup || !task) return;
    const { type, instance } = await openDriver(this.#deps, task);
    if (type.databaseNames === 'none' || !instance.dropDatabase) return;
    // A several-database archive had one sandbox per dump; dropping a name that never existed is a no-op.
    const dumps = isDumpArchive(backup.fileName)
      ? Math.max(
          backup.hasManifest ? (await loadManifest(this.#deps.orm, backup.id)).size : 0,
          task.dbName.split(',').length,
        )
      : 0;
    const names = isDumpArchive(backup.fileName)
      ? Array.from({ length: dumps }, (_, i) => sandboxDatabase(record, i))
      : [sandboxDatabase(record)];
    for (const name of names) await instance.dropDatabase(name);
  }
}
