import type { Alerts } from '../notifications/alerts.ts';
import type { EventBus } from '../events/event-bus.ts';
import type { MikroORM, EntityManager } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  type BackupRecord,
  type BackupRecordCopy,
  type RecordStatus,
} from '../db/entities/backup-record.ts';
import { BackupTaskEntity, type BackupTask } from '../db/entities/backup-task.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import type { SecretBox } from '../security/secret-box.ts';
import {
  type ProviderRegistry,
  type Compression,
  databaseNames,
  readSourceStats,
  runArtifact,
  storedLine,
  type ArtifactRun,
  type ArtifactTarget,
  errorText as message,
  humanBytes as human,
  artifactExtension,
  storageKey,
  fileNameOf,
  stopOutcome,
  RunWarnings,
  withWarnings,
  gnuTarProgram,
  type TarIncremental,
} from '../engine/index.ts';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import { DB_PASSWORD_AAD, sourceSpecOf } from './task-spec.ts';
import { recordedUsage } from '../storage/target-usage.ts';
import { ManifestWriter } from './manifest-writer.ts';
import type { RecordLogHub } from './record-log.ts';
import { settleBackup } from './record-outcome.ts';
import { taskTargets } from './task-targets.ts';
import type { TarSnapshots } from './tar-snapshots.ts';
import { carryManifestRows, chooseBase } from './backup-chain.ts';
import type { Repositories } from './repositories.ts';
import { runRepositoryBackup } from './repository-run.ts';

export interface ExecutorDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
  secretBox: SecretBox;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  events: EventBus;
  alerts: Alerts;
  backupMetrics: BackupMetrics;
  recordLogs: RecordLogHub;
  ageRecipient: string;
  logger: FastifyBaseLogger;
  tarSnapshots: TarSnapshots;
  repositories: Repositories;
}

/** A differential-mode run: the tar snapshot file it writes, and its base when it is a differential. */
interface ChainRun {
  incremental: TarIncremental;
  baseRecordId: number;
  carried: number;
}

type Log = (level: 'info' | 'warn' | 'error', text: string) => void;

export interface ExecutionOutcome {
  record: BackupRecord;
  status: RecordStatus;
}

/**
 * Runs one queued record to its end: source -> pipeline -> every target, then writes the
 * truth into the record and its copies. The record becomes `success` only when every target
 * confirmed a complete object of the checksummed size; `partial` when some did; otherwise
 * `failed` (or `cancelled`, or `failed` with the reason, when it was stopped: see RunStop), and
 * no target keeps an object.
 */
export class BackupExecutor {
  readonly #deps: ExecutorDeps;

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
  }

  async execute(recordId: number, signal: AbortSignal): Promise<ExecutionOutcome> {
    const { orm, recordLogs, backupMetrics } = this.#deps;
    const em = orm.em.fork();
    const record = await em.findOneOrFail(BackupRecordEntity, { id: recordId });
    const task = await em.findOne(BackupTaskEntity, { id: record.taskId }, { populate: ['dbPassword'] });
    const started = new Date();
    record.status = 'running';
    record.startedAt = started;
    await em.flush();
    await recordLogs.open(recordId, 'running');
    const log = (level: 'info' | 'warn' | 'error', text: string): void => void recordLogs.line(recordId, level, text);
    backupMetrics.running.inc();
    let status: RecordStatus = 'failed';
    try {
      if (!task) throw new Error('the task was deleted before the run started');
      task.lastRunAt = started;
      task.lastStatus = 'running';
      await em.flush();
      log(
        'info',
        `backup of task "${task.name}" (${task.type}) started, trigger ${record.trigger} by ${record.triggeredBy}`,
      );
      status = await this.#run(em, record, task, signal, log);
      // Stopped after the artifact was stored: the stop still wins (the caller removes the objects).
      if (signal.aborted) throw signal.reason;
    } catch (err) {
      const stopped = signal.aborted ? stopOutcome(signal.reason) : undefined;
      status = stopped?.status ?? 'failed';
      record.errorMessage = (stopped?.message ?? message(err)).slice(0, 2000);
      if (stopped) record.hasManifest = false;
      log('error', record.errorMessage);
    } finally {
      backupMetrics.running.dec();
    }
    await settleBackup(this.#deps, em, record, task, status);
    return { record, status };
  }

  async #run(
    em: EntityManager,
    record: BackupRecord,
    task: BackupTask,
    signal: AbortSignal,
    log: Log,
  ): Promise<RecordStatus> {
    const { storageOpener, secretBox, databaseDrivers, orm, recordLogs } = this.#deps;
    const ordered = await taskTargets(em, task.id);
    if (ordered.length === 0) throw new Error('the task has no storage target');

    if (task.backupMode === 'repository' && task.type === 'file')
      return runRepositoryBackup(this.#deps, em, {
        record,
        task,
        targets: ordered,
        manifest: new ManifestWriter(orm, record.id),
        signal,
        log,
      });
    const compression = task.compression as Compression;
    const encrypted = task.encrypt;
    record.compression = compression;
    record.encrypted = encrypted;

    // File tasks list their entries; so does a several-database task (one dump per entry).
    const manifest =
      task.type === 'file' || databaseNames(task).length > 1 ? new ManifestWriter(orm, record.id) : undefined;
    const warnings = new RunWarnings();
    let copies: BackupRecordCopy[] = [];
    let run: ArtifactRun;
    const chain = task.backupMode === 'differential' ? await this.#chain(em, record, task, manifest, log) : undefined;
    try {
      run = await runArtifact({
        source: sourceSpecOf(task),
        sourceContext: {
          drivers: databaseDrivers.list(),
          deps: storageOpener.deps(),
          password: task.dbPassword ? secretBox.open(task.dbPassword, DB_PASSWORD_AAD) : '',
          onWarning: (text) => {
            warnings.add(text);
            log('warn', text);
          },
          onEntry: (entry) => manifest?.add(entry),
          signal,
          ...(chain ? { incremental: chain.incremental } : {}),
        },
        prepare: async (rawExtension) => {
          const key = storageKey(
            task.name,
            record.id,
            record.startedAt ?? new Date(),
            artifactExtension(rawExtension, compression, encrypted),
          );
          record.storagePath = key;
          record.fileName = fileNameOf(key);
          copies = ordered.map((t) =>
            em.create(BackupRecordCopyEntity, {
              recordId: record.id,
              storageTargetId: t.id,
              storageTargetName: t.name,
              storagePath: key,
              status: 'pending',
            }),
          );
          await em.flush();
          return { key, targets: await this.#usableTargets(em, ordered, copies, log) };
        },
        onTargetFailed: (target, reason) => {
          const copy = copies.find((c) => c.storageTargetId === target.id)!;
          copy.status = 'failed';
          copy.error = reason;
          log('error', `target "${target.name}": ${reason}`);
        },
        compression,
        ...(encrypted ? { recipient: this.#deps.ageRecipient } : {}),
        signal,
        log,
        onProgress: (p) =>
          recordLogs.progress(
            record.id,
            p,
            `${human(p.bytesRead)} read, ${human(p.bytesStored)} stored, ${human(p.speedBps)}/s`,
          ),
      });
      // A stop while the last targets were finishing: what some of them stored goes too.
      if (signal.aborted) throw signal.reason;
    } catch (err) {
      for (const copy of copies)
        if (copy.status === 'pending') {
          copy.status = 'failed';
          copy.error = message(err).slice(0, 2000);
        }
      await manifest?.discard().catch(() => undefined);
      if (chain) await this.#deps.tarSnapshots.discard(chain.incremental.snapshot);
      await em.flush();
      throw err;
    }
    const status = await this.#settle(em, record, task, copies, run, manifest, warnings, log, chain);
    if (chain) await this.#keepSnapshot(record, chain, status, log);
    return status;
  }

  /**
   * A differential-mode run (file tasks, GNU tar): a differential against the base chooseBase
   * finds, or a full that writes the snapshot file its differentials will need. The log says
   * which, and why a full.
   */
  async #chain(
    em: EntityManager,
    record: BackupRecord,
    task: BackupTask,
    manifest: ManifestWriter | undefined,
    log: Log,
  ): Promise<ChainRun | undefined> {
    const { tarSnapshots } = this.#deps;
    if (task.type !== 'file') return undefined;
    if (!gnuTarProgram()) {
      log(
        'warn',
        'differential mode needs GNU tar, which is not installed here: a full backup without a snapshot file',
      );
      return undefined;
    }
    const found = await chooseBase(em, this.#deps.storageOpener, task, record.startedAt ?? new Date());
    const snapshot = 'base' in found ? await tarSnapshots.of(found.base.id) : undefined;
    if (!('base' in found) || !snapshot || 'missing' in snapshot) {
      const reason = 'reason' in found ? found.reason : snapshot && 'missing' in snapshot ? snapshot.missing : '';
      log('info', `differential mode: a full backup (${reason}); later runs store what changed since it`);
      return { incremental: { snapshot: await tarSnapshots.scratch(record.id) }, baseRecordId: 0, carried: 0 };
    }
    const base = found.base;
    record.backupKind = 'differential';
    record.baseRecordId = base.id;
    await em.flush();
    log('info', `differential backup: what changed since full ${base.id} (${base.fileName})`);
    const chain: ChainRun = {
      incremental: { snapshot: await tarSnapshots.copyFor(snapshot.path, record.id), base: snapshot.path },
      baseRecordId: base.id,
      carried: 0,
    };
    chain.incremental.onCarried = async (entries) => {
      if (!manifest) return;
      chain.carried += await carryManifestRows(this.#deps.orm, record.id, base.id, entries);
    };
    return chain;
  }

  /** A full's snapshot file is sealed and kept for its differentials; a differential's working copy goes. */
  async #keepSnapshot(record: BackupRecord, chain: ChainRun, status: RecordStatus, log: Log): Promise<void> {
    const { tarSnapshots } = this.#deps;
    if (chain.baseRecordId !== 0 || status === 'failed') {
      await tarSnapshots.discard(chain.incremental.snapshot);
      return;
    }
    try {
      await tarSnapshots.store(record.id, chain.incremental.snapshot);
    } catch (err) {
      log('warn', `the tar snapshot file could not be kept (${message(err)}): the next run is a full backup`);
      await tarSnapshots.discard(chain.incremental.snapshot);
    }
  }

  /**
   * The targets a run may write: a disabled target, or one already at its quota, gets a failed
   * copy and is skipped (the quota is soft: the artifact's size is unknown until it is written).
   */
  async #usableTargets(
    em: EntityManager,
    ordered: StorageTarget[],
    copies: BackupRecordCopy[],
    log: Log,
  ): Promise<ArtifactTarget[]> {
    const usable: ArtifactTarget[] = [];
    for (const [i, target] of ordered.entries()) {
      const copy = copies[i]!;
      if (!target.enabled) {
        copy.status = 'failed';
        copy.error = 'the storage target is disabled';
        log('warn', `target "${target.name}": disabled, skipped`);
        continue;
      }
      if (target.quotaBytes > 0) {
        const used = await recordedUsage(em, target.id);
        if (used.bytes >= target.quotaBytes) {
          copy.status = 'failed';
          copy.error = `quota exceeded: ${human(used.bytes)} stored of ${human(target.quotaBytes)}`;
          log('error', `target "${target.name}": ${copy.error}`);
          continue;
        }
      }
      usable.push({ id: target.id, name: target.name, open: () => this.#deps.storageOpener.open(target) });
    }
    return usable;
  }

  /** Writes the targets' outcomes, sizes, checksum, statistics and manifest into the record. */
  async #settle(
    em: EntityManager,
    record: BackupRecord,
    task: BackupTask,
    copies: BackupRecordCopy[],
    run: ArtifactRun,
    manifest: ManifestWriter | undefined,
    warnings: RunWarnings,
    log: Log,
    chain: ChainRun | undefined,
  ): Promise<RecordStatus> {
    const { result, source } = run;
    for (const r of result.results) {
      const copy = copies.find((c) => c.storageTargetId === r.targetId)!;
      copy.status = r.status;
      copy.attempts = r.attempts;
      if (r.status === 'success') copy.fileSize = r.size ?? result.size;
      else {
        copy.error = (r.error ?? 'failed').slice(0, 2000);
        log('error', `target "${r.name}" failed after ${r.attempts} attempt(s): ${copy.error}`);
      }
    }
    const stored = copies.filter((c) => c.status === 'success').length;
    const status: RecordStatus = stored === 0 ? 'failed' : stored === copies.length ? 'success' : 'partial';
    if (status === 'failed') {
      await manifest?.discard().catch(() => undefined);
      record.errorMessage = copies
        .map((c) => `${c.storageTargetName}: ${c.error}`)
        .join('; ')
        .slice(0, 2000);
      await em.flush();
      return 'failed';
    }
    record.fileSize = result.size;
    record.rawSize = result.rawBytes;
    record.checksum = result.checksum;
    const failedCopies =
      status === 'partial'
        ? copies
            .filter((c) => c.status === 'failed')
            .map((c) => `${c.storageTargetName}: ${c.error}`)
            .join('; ')
        : '';
    record.errorMessage = withWarnings(failedCopies, warnings.summary());
    const stats = await readSourceStats(source, log);
    if (stats.tables) record.sourceStats = JSON.stringify({ tables: stats.tables });
    if (stats.databases) record.sourceStats = JSON.stringify({ databases: stats.databases });
    if (manifest && (task.type === 'file' || manifest.count > 0)) {
      try {
        await manifest.finish();
        record.hasManifest = true;
        record.sourceStats = JSON.stringify({
          entries: manifest.count + (chain?.carried ?? 0),
          ...(stats.databases ? { databases: stats.databases } : {}),
        });
      } catch (err) {
        log(
          'warn',
          `the file list could not be stored (${message(err)}); the artifact is complete, its contents cannot be browsed`,
        );
      }
    }
    const entries = manifest ? `, ${manifest.count + (chain?.carried ?? 0)} entries` : '';
    const unchanged = chain?.baseRecordId ? ` (${chain.carried} unchanged, in full ${chain.baseRecordId})` : '';
    log('info', storedLine(result, entries + unchanged));
    await em.flush();
    return status;
  }
}
