import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RecordUpdateInput, TaskSpec } from '../core/agent-protocol/wire.ts';
import {
  Restic,
  RunWarnings,
  errorText,
  humanBytes,
  manifestEntryOfNode,
  resticErrorCode,
  type ResticBackupSummary,
} from '../core/engine/index.ts';
import type { MasterClient } from './master-client.ts';
import type { UpdateReporter } from './update-reporter.ts';

type Results = NonNullable<RecordUpdateInput['repositoryResults']>;

/**
 * A repository-mode run on this node (docs/repositories.md#on-agents): restic backs the task's
 * paths up into the repository of each target, reached through the master's append-only bridge,
 * so this node holds no storage credential and cannot delete a snapshot. The file list comes from
 * the first snapshot (`restic ls`), as on the master; the master checks every snapshot reported.
 */
export async function runRepositoryTask(
  spec: TaskSpec & { repository: NonNullable<TaskSpec['repository']> },
  ctx: { client: MasterClient; tempDir: string; signal: AbortSignal },
  reporter: UpdateReporter,
  log: (level: 'info' | 'warn' | 'error', message: string) => void,
): Promise<{ results: Results; first: ResticBackupSummary | undefined; warnings: string }> {
  const { client, signal } = ctx;
  const { ca, proxy } = client.transport;
  // restic reads the master's CA from a file; removed with the run.
  const scratch = await mkdtemp(join(ctx.tempDir, 'restic-'));
  try {
    let cacert: string | undefined;
    if (ca) {
      cacert = join(scratch, 'master-ca.pem');
      await writeFile(cacert, ca, { mode: 0o600 });
    }
    const warnings = new RunWarnings();
    let listed = false;
    let first: ResticBackupSummary | undefined;
    const results: Results = [];
    await Promise.all(
      spec.repository.targets.map(async (target, i) => {
        try {
          const restic = new Restic({
            repository: `rest:${client.urlOf(target.path)}`,
            password: target.password,
            signal,
            cacheDir: join(ctx.tempDir, 'restic-cache'),
            // a master that does not say: its default
            lockWaitMs: (spec.repository.lockWaitSeconds ?? 600) * 1000,
            onLockWait: (err, waitMs) =>
              log('warn', `"${target.name}": the repository is locked; trying again in ${Math.round(waitMs / 1000)} s`),
            ...(cacert ? { cacert } : {}),
            ...(proxy ? { env: { HTTP_PROXY: proxy, HTTPS_PROXY: proxy } } : {}),
          });
          if (!(await restic.isInitialised())) await restic.init();
          log('info', `restic backup into the repository on "${target.name}" through the master`);
          const summary = await restic.backup(spec.source.sourcePaths, {
            excludes: spec.source.excludePatterns,
            tags: [`backplane-record-${spec.recordId}`, `backplane-task-${spec.taskId}`],
            host: 'backplane',
            onProgress: (p) =>
              i === 0 && reporter.progress({ bytesRead: p.bytesDone, bytesStored: 0, speedBps: 0, elapsedSeconds: 0 }),
            onWarning: (message) => {
              if (i !== 0) return;
              warnings.add(message);
              log('warn', message);
            },
          });
          if (!listed) {
            listed = true;
            first = summary;
            for await (const node of restic.ls(summary.snapshotId, undefined, { recursive: true })) {
              const entry = manifestEntryOfNode(node, spec.source.sourcePaths);
              if (entry) reporter.manifest(entry);
            }
          }
          log('info', `"${target.name}": snapshot ${summary.shortId}, ${humanBytes(summary.dataAdded)} added`);
          results.push({
            targetId: target.id,
            status: 'success',
            snapshotId: summary.snapshotId,
            dataAdded: summary.dataAdded,
          });
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          log('error', `target "${target.name}": ${errorText(err)}`);
          const code = resticErrorCode(err);
          results.push({
            targetId: target.id,
            status: 'failed',
            error: errorText(err).slice(0, 2000),
            ...(code ? { errorCode: code } : {}),
          });
        }
      }),
    );
    return { results, first, warnings: warnings.summary() };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
