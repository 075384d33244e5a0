import type { MikroORM, EntityManager } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { BackupRecordEntity, BackupRecordCopyEntity, type BackupRecord, type RecordStatus } from '../db/entities/backup-record.ts';
import { BackupTaskEntity, type BackupTask } from '../db/entities/backup-task.ts';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { ProviderRegistry } from '../plugin-host/registry.ts';
import type { DatabaseDriverType, StorageInstance } from '@backplane/plugin-api';
import type { EventBus } from '../events/event-bus.ts';
import type { BackupMetrics } from '../metrics/backup-metrics.ts';
import { runPipeline, type PipelineTarget, type PipelineResult } from '../engine/pipeline.ts';
import { compressionExtension, type Compression } from '../engine/compression.ts';
import { DB_PASSWORD_AAD } from './task-source.ts';
import { databaseNames, openTaskSource, sourceSpecOf } from './task-source.ts';
import { errorText as message, humanBytes as human } from '../lib/text.ts';
import { recordedUsage } from './target-usage.ts';
import { ManifestWriter } from './manifest-writer.ts';
import { storageKey, fileNameOf } from './storage-key.ts';
import type { RecordLogHub } from './record-log.ts';
import { settleBackup } from './record-outcome.ts';
import { taskTargets } from './task-targets.ts';
import { stopOutcome } from './run-stop.ts';
import { RunWarnings, withWarnings } from './run-warnings.ts';

export interface ExecutorDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
  secretBox: SecretBox;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  events: EventBus;
  backupMetrics: BackupMetrics;
  recordLogs: RecordLogHub;
  ageRecipient: string;
  logger: FastifyBaseLogger;
}

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
  readonly #d: ExecutorDeps;

  constructor(deps: ExecutorDeps) {
    this.#d = deps;
  }

  async execute(recordId: number, signal: AbortSignal): Promise<ExecutionOutcome> {
    const { orm, recordLogs, backupMetrics } = this.#d;
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
      log('info', `backup of task "${task.name}" (${task.type}) started, trigger ${record.trigger} by ${record.triggeredBy}`);
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
    await settleBackup(this.#d, em, record, task, status);
    return { record, status };
  }

  async #run(em: EntityManager, record: BackupRecord, task: BackupTask, signal: AbortSignal, log: (level: 'info' | 'warn' | 'error', text: string) => void): Promise<RecordStatus> {
    const { storageOpener, secretBox, databaseDrivers, orm, recordLogs } = this.#d;
    const ordered = await taskTargets(em, task.id);
    if (ordered.length === 0) throw new Error('the task has no storage target');

    const compression = task.compression as Compression;
    const encrypted = task.encrypt;
    record.compression = compression;
    record.encrypted = encrypted;

    // File tasks list their entries; so does a several-database task (one dump per entry).
    const manifest = task.type === 'file' || databaseNames(task).length > 1 ? new ManifestWriter(orm, record.id) : undefined;
    const warnings = new RunWarnings();
    const source = await openTaskSource(sourceSpecOf(task), {
      drivers: databaseDrivers.list(),
      deps: storageOpener.deps(),
      password: task.dbPassword ? secretBox.open(task.dbPassword, DB_PASSWORD_AAD) : '',
      onWarning: (text) => {
        warnings.add(text);
        log('warn', text);
      },
      onEntry: (entry) => manifest?.add(entry),
      signal,
    });
    // A source failing later rejects here; the pipeline sees the same failure as a stream error.
    source.done.catch(() => undefined);

    const extension = `${source.extension}${compressionExtension(compression)}${encrypted ? '.age' : ''}`;
    const key = storageKey(task.name, record.id, record.startedAt ?? new Date(), extension);
    record.storagePath = key;
    record.fileName = fileNameOf(key);

    const copies = ordered.map((t) => em.create(BackupRecordCopyEntity, { recordId: record.id, storageTargetId: t.id, storageTargetName: t.name, storagePath: key, status: 'pending' }));
    await em.flush();

    const opened: PipelineTarget[] = [];
    const instances: StorageInstance[] = [];
    for (const [i, target] of ordered.entries()) {
      const copy = copies[i]!;
      if (!target.enabled) {
        copy.status = 'failed';
        copy.error = 'the storage target is disabled';
        log('warn', `target "${target.name}": disabled, skipped`);
        continue;
      }
      if (target.quotaBytes > 0) {
        // A soft quota: the artifact's size is unknown until it is written, so a target already at its quota takes no more.
        const used = await recordedUsage(em, target.id);
        if (used.bytes >= target.quotaBytes) {
          copy.status = 'failed';
          copy.error = `quota exceeded: ${human(used.bytes)} stored of ${human(target.quotaBytes)}`;
          log('error', `target "${target.name}": ${copy.error}`);
          continue;
        }
      }
      try {
        const instance = await storageOpener.open(target);
        instances.push(instance);
        opened.push({ id: target.id, name: target.name, instance, key });
      } catch (err) {
        copy.status = 'failed';
        copy.error = message(err).slice(0, 2000);
        log('error', `target "${target.name}": ${copy.error}`);
      }
    }
    if (opened.length === 0) {
      source.stream.destroy();
      await em.flush();
      throw new Error('no storage target could be opened');
    }
    log('info', `writing ${key} to ${opened.map((t) => `"${t.name}"`).join(', ')} (${compression}${encrypted ? ', age-encrypted' : ''})`);

    let result: PipelineResult;
    try {
      result = await runPipeline({
        source: source.stream,
        compression,
        ...(encrypted ? { recipient: this.#d.ageRecipient } : {}),
        targets: opened,
        signal,
        onProgress: (p) => recordLogs.progress(record.id, { bytesRead: p.bytesRead, bytesStored: p.bytesStored, speedBps: Math.round(p.rate), elapsedSeconds: Math.round(p.elapsedMs / 1000) }, `${human(p.bytesRead)} read, ${human(p.bytesStored)} stored, ${human(p.rate)}/s`),
      });
      // Every target failing stops the source early; its own error would hide the targets' reasons.
      if (result.status !== 'failed') await source.done;
      // A stop while the last targets were finishing: what some of them stored goes too.
      if (signal.aborted) throw signal.reason;
    } catch (err) {
      for (const copy of copies) if (copy.status === 'pending') { copy.status = 'failed'; copy.error = message(err).slice(0, 2000); }
      await manifest?.discard().catch(() => undefined);
      await em.flush();
      throw err;
    } finally {
      await Promise.allSettled(instances.map((i) => i.close?.()));
    }

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
      record.errorMessage = copies.map((c) => `${c.storageTargetName}: ${c.error}`).join('; ').slice(0, 2000);
      await em.flush();
      return 'failed';
    }
    record.fileSize = result.size;
    record.rawSize = result.rawBytes;
    record.checksum = result.checksum;
    const failedCopies = status === 'partial' ? copies.filter((c) => c.status === 'failed').map((c) => `${c.storageTargetName}: ${c.error}`).join('; ') : '';
    record.errorMessage = withWarnings(failedCopies, warnings.summary());
    if (source.tableStats) {
      try {
        record.sourceStats = JSON.stringify({ tables: await source.tableStats() });
      } catch (err) {
        log('warn', `table row counts could not be read (${message(err)}); deep verification will not compare them`);
      }
    }
    let databases: Record<string, Record<string, number>> | undefined;
    if (source.databaseStats) {
      try {
        databases = await source.databaseStats();
        record.sourceStats = JSON.stringify({ databases });
      } catch (err) {
        log('warn', `table row counts could not be read (${message(err)}); deep verification will not compare them`);
      }
    }
    if (manifest && (task.type === 'file' || manifest.count > 0)) {
      try {
        await manifest.finish();
        record.hasManifest = true;
        record.sourceStats = JSON.stringify({ entries: manifest.count, ...(databases ? { databases } : {}) });
      } catch (err) {
        log('warn', `the file list could not be stored (${message(err)}); the artifact is complete, its contents cannot be browsed`);
      }
    }
    log('info', `stored ${human(result.size)} (from ${human(result.rawBytes)}), sha256 ${result.checksum}${manifest ? `, ${manifest.count} entries` : ''}`);
    await em.flush();
    return status;
  }
}
