import { Readable } from 'node:stream';
import { BackupRecordEntity, ARTIFACT_STATUSES, type BackupRecord } from '../db/entities/backup-record.ts';
import { type Compression, type RestoreSource } from '../engine/index.ts';
import { copyVerdict, openStoredCopy, rawStream, type CopyDeps, type OpenedCopy } from './artifact-source.ts';
import { loadManifest } from './stored-manifest.ts';

/**
 * The archives a differential restores from: its full, then itself (docs/differential.md). Each
 * copy is opened only when its turn comes (a differential's stream left waiting while its full
 * is extracted would hold a storage connection idle for as long), and a copy whose bytes prove
 * corrupt is marked, logged and the chain read again from the next copy, as every reader does.
 */

export interface ChainDeps extends CopyDeps {
  ageKeys: { identity: string };
}

/** The full a differential builds on, or why it cannot be read. */
export async function baseOf(deps: CopyDeps, record: BackupRecord): Promise<BackupRecord> {
  const base = await deps.orm.em.fork().findOne(BackupRecordEntity, { id: record.baseRecordId });
  if (!base || !ARTIFACT_STATUSES.includes(base.status))
    throw new Error(`the full backup this differential builds on (record ${record.baseRecordId}) is gone`);
  return base;
}

export interface ChainLinks {
  /** The full, with its manifest. */
  base: { source: RestoreSource; manifest: Map<string, number> | undefined };
  /** The differential. */
  source: RestoreSource;
}

/**
 * Runs `use` on lazily opened sources for `base` then `record`; on a failure that a corrupt copy
 * explains, again without that copy. Resolves with `use`'s value.
 */
export async function withHealthyChain<T>(
  deps: ChainDeps,
  record: BackupRecord,
  base: BackupRecord,
  log: (level: 'info' | 'error', message: string) => void,
  use: (links: ChainLinks) => Promise<T>,
  options: { signal?: AbortSignal; onStoredBytes?: (n: number) => void } = {},
): Promise<T> {
  const manifest = base.hasManifest ? await loadManifest(deps.orm, base.id) : undefined;
  const tried = new Map<number, number[]>([
    [base.id, []],
    [record.id, []],
  ]);
  for (;;) {
    const used: Array<{ record: BackupRecord; copy: OpenedCopy }> = [];
    const lazy = (rec: BackupRecord): RestoreSource => ({
      compression: rec.compression as Compression,
      open: (decompressed) =>
        Readable.from(
          (async function* () {
            const copy = await openStoredCopy(deps.orm, deps.storageOpener, rec, {
              excludeCopies: tried.get(rec.id)!,
              ...(options.signal ? { signal: options.signal } : {}),
            });
            used.push({ record: rec, copy });
            log('info', `reading ${rec.id === base.id ? 'the full' : 'the differential'} from "${copy.targetName}"`);
            yield* rawStream(copy, rec, deps.ageKeys.identity, options.onStoredBytes, decompressed);
          })(),
          { objectMode: false },
        ),
    });
    try {
      return await use({ base: { source: lazy(base), manifest }, source: lazy(record) });
    } catch (err) {
      for (const u of used) u.copy.stream.destroy();
      if (options.signal?.aborted) throw err;
      let corrupt = false;
      for (const u of used) {
        const verdict = await copyVerdict(deps, u.record, u.copy);
        if (verdict?.state !== 'corrupt') continue;
        corrupt = true;
        tried.get(u.record.id)!.push(u.copy.copyId);
        log(
          'error',
          `the copy of record ${u.record.id} on "${u.copy.targetName}" is corrupt (${verdict.why}); trying the next copy`,
        );
      }
      if (!corrupt) throw err;
    }
  }
}
