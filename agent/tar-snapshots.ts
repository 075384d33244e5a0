import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { TaskSpec } from '../core/agent-protocol/wire.ts';
import { errorText, snapshotChecksum, type TarIncremental } from '../core/engine/index.ts';
import type { MasterClient } from './master-client.ts';

/**
 * A differential-mode run on this node (docs/differential.md): the GNU tar snapshot file of each
 * full is kept in `<temp dir>/tar-snapshots/` and, sealed, by the master. A differential uses the
 * local copy when its SHA-256 is the one the master names, else fetches the sealed one; when
 * neither can be had, the run is a full (and says so), never a differential against a wrong file.
 */

export interface NodeChain {
  incremental: TarIncremental;
  /** 0 for a full. */
  baseRecordId: number;
  /** After the run succeeded: a full's file goes to the master and is kept here; a differential's working copy goes. */
  keep(): Promise<void>;
  discard(): Promise<void>;
}

export async function prepareNodeChain(
  spec: TaskSpec,
  ctx: { tempDir: string; client: MasterClient; signal: AbortSignal },
  log: (level: 'info' | 'warn', message: string) => void,
): Promise<{ chain: NodeChain; fellBack: boolean } | undefined> {
  const d = spec.differential;
  if (!d || spec.source.type !== 'file') return undefined;
  const dir = join(ctx.tempDir, 'tar-snapshots');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const run = join(dir, `run-${spec.recordId}.snar`);
  await rm(run, { force: true });
  const local = (id: number): string => join(dir, `record-${id}.snar`);
  const full = (fellBack: boolean): { chain: NodeChain; fellBack: boolean } => ({
    fellBack,
    chain: {
      incremental: { snapshot: run },
      baseRecordId: 0,
      async keep() {
        try {
          await ctx.client.putFile(`/api/agent/records/${spec.recordId}/tar-snapshot`, run, {}, { signal: ctx.signal });
          await rename(run, local(spec.recordId));
        } catch (err) {
          log('warn', `the tar snapshot file could not be stored (${errorText(err)}): the next run is a full backup`);
          await rm(run, { force: true });
        }
      },
      discard: () => rm(run, { force: true }),
    },
  });
  if (d.baseRecordId === 0) {
    log('info', `differential mode: a full backup (${d.note}); later runs store what changed since it`);
    return full(false);
  }
  const base = local(d.baseRecordId);
  const held = await readFile(base).catch(() => undefined);
  if (!held || snapshotChecksum(held) !== d.checksum) {
    try {
      const download = await ctx.client.download(`/api/agent/records/${spec.recordId}/base-snapshot`, {
        signal: ctx.signal,
      });
      await pipeline(download.stream, createWriteStream(`${base}.part`, { mode: 0o600 }));
      if (snapshotChecksum(await readFile(`${base}.part`)) !== d.checksum)
        throw new Error('its SHA-256 differs from the record');
      await rename(`${base}.part`, base);
      log('info', `the snapshot file of full ${d.baseRecordId} was fetched from the master`);
    } catch (err) {
      await rm(`${base}.part`, { force: true });
      log(
        'warn',
        `differential mode: a full backup (the snapshot file of full ${d.baseRecordId} cannot be had: ${errorText(err)})`,
      );
      return full(true);
    }
  }
  await copyFile(base, run);
  log('info', `differential backup: what changed since full ${d.baseRecordId}`);
  return {
    fellBack: false,
    chain: {
      incremental: { snapshot: run, base },
      baseRecordId: d.baseRecordId,
      keep: () => rm(run, { force: true }),
      discard: () => rm(run, { force: true }),
    },
  };
}
