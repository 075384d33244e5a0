import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { BackupRecordCopyEntity, type BackupRecord, type BackupRecordCopy } from '../db/entities/backup-record.ts';
import { RepositoryEntity } from '../db/entities/repository.ts';
import { StorageTargetEntity } from '../db/entities/storage-target.ts';
import type { OpenRepository, Repositories } from '../backup/repositories.ts';
import { errorText } from '../engine/index.ts';
import type { CopyDeps } from './artifact-source.ts';

/**
 * Reading a repository record (docs/repositories.md): its snapshot in the repository of the
 * first target that can serve it. A target that cannot be reached or whose repository fails is
 * logged and the next target's snapshot tried, as artifact reads fall back to the next copy.
 */

export interface RepositoryReadDeps extends CopyDeps {
  repositories: Repositories;
}

export async function withRepositorySnapshot<T>(
  deps: RepositoryReadDeps,
  record: BackupRecord,
  log: (level: 'info' | 'error', message: string) => void,
  use: (opened: OpenRepository, copy: BackupRecordCopy) => Promise<T>,
  options: { signal?: AbortSignal } = {},
): Promise<{ value: T; copy: BackupRecordCopy }> {
  const em = deps.orm.em.fork();
  const copies = (
    await em.find(BackupRecordCopyEntity, { recordId: record.id, status: 'success' }, { orderBy: { id: 'asc' } })
  ).filter((c) => c.snapshotId !== '');
  const reasons: string[] = [];
  for (const copy of copies) {
    const target = await em.findOne(StorageTargetEntity, { id: copy.storageTargetId }, { populate: ['secrets'] });
    const repository = await em.findOne(
      RepositoryEntity,
      { taskId: record.taskId, storageTargetId: copy.storageTargetId },
      { populate: ['sealedPassword'] },
    );
    if (!target?.enabled || !repository) {
      reasons.push(`${copy.storageTargetName}: the target or its repository is gone`);
      continue;
    }
    let opened: OpenRepository | undefined;
    try {
      opened = await deps.repositories.open(repository, target, options.signal ? { signal: options.signal } : {});
      log('info', `reading snapshot ${copy.snapshotId.slice(0, 8)} from the repository on "${target.name}"`);
      return { value: await use(opened, copy), copy };
    } catch (err) {
      if (options.signal?.aborted) throw err;
      reasons.push(`${copy.storageTargetName}: ${errorText(err)}`);
      log('error', `the repository on "${copy.storageTargetName}" failed (${errorText(err)}); trying the next target`);
    } finally {
      await opened?.close();
    }
  }
  throw new Error(`no repository could serve the snapshot (${reasons.join('; ') || 'no copy'})`.slice(0, 2000));
}

/**
 * A tar of the whole snapshot (`restic dump --archive tar`), streamed: a download of a
 * repository record. The repository stays open until the stream ends or is destroyed.
 */
export async function snapshotTar(
  deps: RepositoryReadDeps,
  record: BackupRecord,
  log: (level: 'info' | 'error', message: string) => void,
): Promise<{ stream: Readable; copy: BackupRecordCopy }> {
  const handed = Promise.withResolvers<{ stream: Readable; copy: BackupRecordCopy }>();
  const served = withRepositorySnapshot(deps, record, log, async (opened, copy) => {
    const stream = opened.restic.dump(copy.snapshotId, '/', { archive: 'tar' });
    handed.resolve({ stream, copy });
    await finished(stream).catch(() => undefined);
  });
  served.catch((err: unknown) => handed.reject(err));
  return handed.promise;
}
