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
} from '../engine/index.ts';
import type { ManifestWriter } from './manifest-writer.ts';
import type { Repositories } from './repositories.ts';
import type { RecordLogHub } from './record-log.ts';

/**
 * A repository-mode run (docs/repositories.md): restic backs the task's paths up into the
 * repository of every target at once, each through its own loopback bridge. Each target's copy
 * holds its snapshot id and the bytes the run added there; the record's file list comes from the
 * first snapshot (`restic ls`), so browsing, search and selective restore work as for artifacts.
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
  let listed = false;
  const summaries = await Promise.allSettled(
    targets.map(async (target, i): Promise<ResticBackupSummary> => {
      const copy = copies[i]!;
      if (!target.enabled) throw new Error('the storage target is disabled');
      const repository = await deps.repositories.of(task.id, target.id);
      const opened = await deps.repositories.open(repository, target, { signal, init: true });
      try {
        log('info', `restic backup into the repository on "${target.name}" (${repository.prefix})`);
        const summary = await opened.restic.backup(JSON.parse(task.sourcePaths) as string[], {
          excludes: JSON.parse(task.excludePatterns) as string[],
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
        if (!listed) {
          listed = true;
          for await (const node of opened.restic.ls(summary.snapshotId, undefined, { recursive: true })) {
            const entry = manifestEntryOfNode(node, JSON.parse(task.sourcePaths) as string[]);
            if (entry) manifest.add(entry);
          }
        }
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
  let first: ResticBackupSummary | undefined;
  for (const [i, outcome] of summaries.entries()) {
    const copy = copies[i]!;
    if (outcome.status === 'fulfilled') {
      copy.status = 'success';
      copy.attempts = 1;
      first ??= outcome.value;
    } else {
      copy.status = 'failed';
      copy.error = errorText(outcome.reason).slice(0, 2000);
      log('error', `target "${copy.storageTargetName}": ${copy.error}`);
    }
  }
  if (signal.aborted) throw signal.reason;
  const stored = copies.filter((c) => c.status === 'success');
  if (!first || stored.length === 0) {
    await manifest.discard().catch(() => undefined);
    record.errorMessage = copies
      .map((c) => `${c.storageTargetName}: ${c.error}`)
      .join('; ')
      .slice(0, 2000);
    await em.flush();
    return 'failed';
  }
  record.fileSize = first.dataAdded;
  record.rawSize = first.totalBytesProcessed;
  const status: RecordStatus = stored.length === copies.length ? 'success' : 'partial';
  const failed = copies
    .filter((c) => c.status === 'failed')
    .map((c) => `${c.storageTargetName}: ${c.error}`)
    .join('; ');
  record.errorMessage = withWarnings(failed, warnings.summary());
  try {
    await manifest.finish();
    record.hasManifest = true;
    record.sourceStats = JSON.stringify({ entries: manifest.count, snapshotFiles: first.totalFilesProcessed });
  } catch (err) {
    log(
      'warn',
      `the file list could not be stored (${errorText(err)}); the snapshot is complete, its contents cannot be browsed`,
    );
  }
  log(
    'info',
    `stored snapshot ${first.shortId} of ${humanBytes(first.totalBytesProcessed)}: ${humanBytes(first.dataAdded)} new after deduplication`,
  );
  await em.flush();
  return status;
}
