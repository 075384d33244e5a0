import type { EntityManager } from '@mikro-orm/core';
import {
  BackupRecordCopyEntity,
  type BackupRecord,
  type BackupRecordCopy,
  type RecordStatus,
} from '../db/entities/backup-record.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import type { StorageTarget } from '../db/entities/storage-target.ts';
import {
  errorText,
  humanBytes,
  type ResticBackupSummary,
  manifestEntryOfNode,
  withWarnings,
  RunWarnings,
  listSources,
  resticErrorCode,
  type SourceListing,
} from '../engine/index.ts';
import type { ManifestWriter } from './manifest-writer.ts';
import type { Repositories } from './repositories.ts';
import type { RecordLogHub } from './record-log.ts';

/**
 * A repository-mode run (docs/repositories.md): restic backs the task's paths up into the
 * repository of every target at once, each through its own loopback bridge. Each target's copy
 * holds its snapshot id and the bytes the run added there. The record's file list, for browsing,
 * search and selective restore as for artifacts, is walked beside restic (source-listing.ts) and
 * kept when it counts the files and bytes restic's summary counts; otherwise it is read from the
 * first snapshot (`restic ls`), which costs one more repository opening.
 */

type Log = (level: 'info' | 'warn' | 'error', text: string) => void;

export interface RepositoryRunDeps {
  repositories: Repositories;
  recordLogs: RecordLogHub;
}

export async function runRepositoryBackup(
  deps: RepositoryRunDeps,
  em: EntityManager,
  run: {
    record: BackupRecord;
    task: BackupTask;
    targets: StorageTarget[];
    manifest: ManifestWriter;
    signal: AbortSignal;
    log: Log;
  },
): Promise<RecordStatus> {
  const { record, task, targets, manifest, signal, log } = run;
  record.backupKind = 'repository';
  record.compression = 'zstd';
  record.encrypted = true;
  record.fileName = `${task.name}-${record.id}.restic`;
  const copies: BackupRecordCopy[] = [];
  for (const target of targets) {
    const repository = await deps.repositories.of(task.id, target.id);
    copies.push(
      em.create(BackupRecordCopyEntity, {
        recordId: record.id,
        storageTargetId: target.id,
        storageTargetName: target.name,
        storagePath: repository.prefix,
        status: 'pending',
      }),
    );
  }
  record.storagePath = copies[0]?.storagePath ?? '';
  await em.flush();
  const warnings = new RunWarnings();
  const sources = JSON.parse(task.sourcePaths) as string[];
  const excludes = JSON.parse(task.excludePatterns) as string[];
  const walked: Promise<SourceListing | Error> = listSources(sources, excludes, (e) => manifest.add(e), signal).catch(
    (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
  );
  const summaries = await Promise.allSettled(
    targets.map(async (target, i): Promise<ResticBackupSummary> => {
      const copy = copies[i]!;
      if (!target.enabled) throw new Error('the storage target is disabled');
      const repository = await deps.repositories.of(task.id, target.id);
      const opened = await deps.repositories.open(repository, target, {
        signal,
        init: true,
        onLockWait: (err, waitMs) =>
          log(
            'warn',
            `"${target.name}": the repository is locked (${lockHolder(err.stderr)}); trying again in ${Math.round(waitMs / 1000)} s`,
          ),
      });
      try {
        log('info', `restic backup into the repository on "${target.name}" (${repository.prefix})`);
        const summary = await opened.restic.backup(sources, {
          excludes,
          tags: [`backplane-record-${record.id}`, `backplane-task-${task.id}`],
          host: 'backplane',
          resolveSnapshotId: opened.resolveSnapshotId,
          onProgress: (p) =>
            i === 0 &&
            deps.recordLogs.progress(
              record.id,
              { bytesRead: p.bytesDone, bytesStored: 0, speedBps: 0, elapsedSeconds: 0 },
              `${humanBytes(p.bytesDone)} of ${humanBytes(p.totalBytes)} read (${Math.round(p.percentDone * 100)}%)`,
            ),
          onWarning: (message) => {
            if (i !== 0) return;
            warnings.add(message);
            log('warn', message);
          },
        });
        copy.snapshotId = summary.snapshotId;
        copy.fileSize = summary.dataAdded;
        log(
          'info',
          `"${target.name}": snapshot ${summary.shortId}, ${summary.filesNew} new, ${summary.filesChanged} changed, ` +
            `${summary.filesUnmodified} unchanged files; ${humanBytes(summary.dataAdded)} added`,
        );
        return summary;
      } finally {
        await opened.close();
      }
    }),
  );
  let first: { summary: ResticBackupSummary; target: StorageTarget } | undefined;
  for (const [i, outcome] of summaries.entries()) {
    const copy = copies[i]!;
    if (outcome.status === 'fulfilled') {
      copy.status = 'success';
      copy.attempts = 1;
      first ??= { summary: outcome.value, target: targets[i]! };
    } else {
      copy.status = 'failed';
      copy.error = errorText(outcome.reason).slice(0, 2000);
      copy.errorCode = resticErrorCode(outcome.reason);
      log('error', `target "${copy.storageTargetName}": ${copy.error}`);
    }
  }
  const listing = await walked;
  if (signal.aborted) throw signal.reason;
  const stored = copies.filter((c) => c.status === 'success');
  if (!first || stored.length === 0) {
    await manifest.discard().catch(() => undefined);
    record.errorMessage = copies
      .map((c) => `${c.storageTargetName}: ${c.error}`)
      .join('; ')
      .slice(0, 2000);
    record.errorCode = copies.find((c) => c.errorCode !== '')?.errorCode ?? '';
    await em.flush();
    return 'failed';
  }
  const { summary } = first;
  record.fileSize = summary.dataAdded;
  record.rawSize = summary.totalBytesProcessed;
  const status: RecordStatus = stored.length === copies.length ? 'success' : 'partial';
  const failed = copies
    .filter((c) => c.status === 'failed')
    .map((c) => `${c.storageTargetName}: ${c.error}`)
    .join('; ');
  record.errorMessage = withWarnings(failed, warnings.summary());
  record.errorCode = copies.find((c) => c.errorCode !== '')?.errorCode ?? '';
  try {
    const mismatch = listingMismatch(listing, summary, warnings);
    if (mismatch) {
      log('info', `the file list is read from snapshot ${summary.shortId}: ${mismatch}`);
      await manifest.discard();
      await listSnapshot(deps, task, first.target, summary.snapshotId, sources, manifest, signal);
    }
    await manifest.finish();
    record.hasManifest = true;
    record.sourceStats = JSON.stringify({ entries: manifest.count, snapshotFiles: summary.totalFilesProcessed });
  } catch (err) {
    if (signal.aborted) throw signal.reason;
    log(
      'warn',
      `the file list could not be stored (${errorText(err)}); the snapshot is complete, its contents cannot be browsed`,
    );
  }
  log(
    'info',
    `stored snapshot ${summary.shortId} of ${humanBytes(summary.totalBytesProcessed)}: ${humanBytes(summary.dataAdded)} new after deduplication`,
  );
  await em.flush();
  return status;
}

/** Why the walk beside restic cannot stand for the snapshot, or undefined when it can. */
function listingMismatch(
  listing: SourceListing | Error,
  summary: ResticBackupSummary,
  warnings: RunWarnings,
): string | undefined {
  if (listing instanceof Error) return `the walk beside restic failed (${listing.message})`;
  if (warnings.count > 0) return 'restic reported files it could not read';
  if (listing.files !== summary.totalFilesProcessed || listing.bytes !== summary.totalBytesProcessed)
    return (
      `the walk beside restic saw ${listing.files} files of ${listing.bytes} bytes, restic stored ` +
      `${summary.totalFilesProcessed} of ${summary.totalBytesProcessed} (the tree changed during the run)`
    );
  return undefined;
}

/** The record's file list from the snapshot itself (`restic ls`): exact, for one more repository opening. */
async function listSnapshot(
  deps: RepositoryRunDeps,
  task: BackupTask,
  target: StorageTarget,
  snapshotId: string,
  sources: string[],
  manifest: ManifestWriter,
  signal: AbortSignal,
): Promise<void> {
  const repository = await deps.repositories.of(task.id, target.id);
  const opened = await deps.repositories.open(repository, target, { signal });
  try {
    for await (const node of opened.restic.ls(snapshotId, undefined, { recursive: true })) {
      const entry = manifestEntryOfNode(node, sources);
      if (entry) manifest.add(entry);
    }
  } finally {
    await opened.close();
  }
}

/** Who holds a lock, from restic's refusal ("...locked exclusively by PID 123 on host by user"). */
function lockHolder(stderr: string): string {
  const held = /locked (exclusively )?by (PID \d+ on \S+ by [^\n(]+)/.exec(stderr);
  return held ? `held ${held[1] ?? ''}by ${held[2]!.trim()}` : 'held by another restic';
}
