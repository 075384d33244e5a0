import type { TargetOutcome, TaskSpec } from '../../core/agent-protocol/wire.ts';
import {
  RunWarnings,
  readSourceStats,
  runArtifact,
  storedLine,
  errorText,
  humanBytes,
} from '../../core/engine/index.ts';
import type { ProviderDeps, StorageInstance } from '@backplane/plugin-api';
import { Backoff, retryWithBackoff } from '../backoff.ts';
import { isRetryable } from '../master-client.ts';
import { pacedStorage, parseBandwidth } from '../throttle.ts';
import { removeSpool, SpoolStorage, spoolDir, spoolPath } from '../spool.ts';
import { RunFailure, UpdateReporter, reportFailure, type LogLevel } from '../update-reporter.ts';
import { payloadId, providerDeps, type CommandContext, type CommandOutcome } from './command-types.ts';
import { prepareNodeChain, type NodeChain } from '../tar-snapshots.ts';
import { runRepositoryTask } from '../repository-run.ts';

/** A direct target, opened on this node with the configuration the spec carries. */
async function openDirect(
  ctx: CommandContext,
  t: TaskSpec['targets'][number],
  deps: ProviderDeps,
  rate: number | undefined,
): Promise<StorageInstance> {
  const type = ctx.registries.storageTypes.get(t.type);
  if (!type) throw new Error(`storage type "${t.type}" is not installed on this node`);
  const instance = await type.create(t.config ?? {}, deps);
  return rate ? pacedStorage(instance, rate) : instance;
}

/** How long one relay upload is retried while the master is away. */
const RELAY_RETRY_MS = 10 * 60_000;
const SPOOL_ID = 'relay-spool';

/**
 * One placed backup: spec, `running`, the engine, relay uploads, the final update. Returns the
 * command outcome; the record's own status travels in the record updates.
 */
export async function runTaskCommand(payload: Record<string, unknown>, ctx: CommandContext): Promise<CommandOutcome> {
  const taskId = payloadId(payload, 'taskId');
  const recordId = payloadId(payload, 'recordId');
  const { client } = ctx;
  const ended = new AbortController();
  const signal = AbortSignal.any([ctx.signal, ended.signal]);
  const reporter = new UpdateReporter({
    client,
    path: `/api/agent/records/${recordId}`,
    onRejected: (status) => ended.abort(new Error(`the master ended the record (${status})`)),
    onError: (message) => ctx.log.warn({ recordId }, `record update: ${message}`),
  });
  const log = (level: LogLevel, message: string): void => reporter.log(level, message);
  const result = { recordId };
  let spool: SpoolStorage | undefined;
  let chain: NodeChain | undefined;

  try {
    const spec = await client.get<TaskSpec>(`/api/agent/tasks/${taskId}?recordId=${recordId}`, { signal });
    const running = await reporter.send({ status: 'running' }, { signal });
    if (!running.accepted) return { success: false, error: `the record is already ${running.status}`, result };
    reporter.start();
    log('info', `backup of task "${spec.name}" (${spec.source.type}) started on this node`);

    if (spec.repository) {
      const repository = spec.repository;
      const done = await runRepositoryTask(
        { ...spec, repository },
        { client, tempDir: ctx.tempDir, signal },
        reporter,
        log,
      );
      if (!done.first)
        throw new RunFailure(
          done.results.map((r) => r.error ?? 'failed').join('; ') || 'no repository took the snapshot',
          done.results.find((r) => r.errorCode)?.errorCode,
        );
      const final = await reporter.send(
        {
          status: 'success',
          fileSize: done.first.dataAdded,
          rawSize: done.first.totalBytesProcessed,
          repositoryResults: done.results,
          ...(done.warnings ? { errorMessage: done.warnings } : {}),
        },
        { final: true },
      );
      return final.accepted
        ? { success: true, result }
        : { success: false, error: `the record is already ${final.status}`, result };
    }
    if (spec.encrypt && !spec.recipient) throw new Error('the task is encrypted but the master sent no recipient');
    const prepared = await prepareNodeChain(spec, { tempDir: ctx.tempDir, client, signal }, log);
    chain = prepared?.chain;
    if (prepared?.fellBack) await reporter.send({ backupKind: 'full' }, { signal });
    const deps = providerDeps(ctx, log);
    // The node's bandwidth limit paces what leaves the node: relayed and direct uploads alike.
    const rate = parseBandwidth(spec.bandwidthLimit);
    const direct: TargetOutcome[] = [];
    const relays = spec.targets.filter((x) => x.mode === 'relay');
    const warnings = new RunWarnings();
    const { result: outcome, source } = await runArtifact({
      source: spec.source,
      sourceContext: {
        drivers: ctx.registries.databaseDrivers.list(),
        // Dumps of a several-database task are spooled where a restarted agent clears leftovers.
        deps: { ...deps, tempDir: spoolDir(ctx.tempDir) },
        password: spec.source.dbPassword ?? '',
        onWarning: (message) => {
          warnings.add(message);
          log('warn', message);
        },
        onEntry: (entry) => reporter.manifest(entry),
        signal,
        ...(chain ? { incremental: { ...chain.incremental, onCarried: (entries) => reporter.carried(entries) } } : {}),
      },
      prepare: () =>
        Promise.resolve({
          key: spec.storageKey,
          targets: [
            ...spec.targets
              .filter((x) => x.mode === 'direct')
              .map((t) => ({ id: t.id, name: t.name, open: () => openDirect(ctx, t, deps, rate) })),
            // Relayed targets get the artifact from a local spool once it is whole.
            ...(relays.length > 0
              ? [
                  {
                    id: SPOOL_ID,
                    name: 'relay spool',
                    open: () =>
                      Promise.resolve((spool = new SpoolStorage(spoolPath(ctx.tempDir, `record-${recordId}`)))),
                  },
                ]
              : []),
          ],
          description: spec.targets.map((t) => `"${t.name}" (${t.mode})`).join(', '),
        }),
      onTargetFailed: (t, reason) => {
        direct.push({ targetId: t.id as number, status: 'failed', error: reason });
        log('error', `target "${t.name}": ${reason}`);
      },
      compression: spec.compression,
      ...(spec.encrypt && spec.recipient ? { recipient: spec.recipient } : {}),
      signal,
      log,
      onProgress: (p) => reporter.progress(p),
      noTargetError: 'no storage target could be opened on this node',
    });

    for (const r of outcome.results) {
      if (r.targetId === SPOOL_ID) continue;
      direct.push({
        targetId: r.targetId as number,
        status: r.status,
        ...(r.size !== undefined ? { size: r.size } : {}),
        ...(r.error ? { error: r.error.slice(0, 2000) } : {}),
      });
      if (r.status === 'failed')
        log('error', `target "${r.name}" failed after ${r.attempts} attempt(s): ${r.error ?? 'failed'}`);
    }
    const spoolResult = outcome.results.find((r) => r.targetId === SPOOL_ID);
    if (spoolResult?.status === 'failed') log('error', `the relay spool failed: ${spoolResult.error ?? 'failed'}`);
    if (outcome.status === 'failed')
      throw new Error(outcome.results.map((r) => `${r.name}: ${r.error ?? 'failed'}`).join('; '));

    let relayed = 0;
    if (spool && spoolResult?.status === 'success') {
      for (const t of relays) {
        if (signal.aborted) throw signal.reason;
        try {
          await retryWithBackoff(
            () =>
              client.putFile(
                `/api/agent/records/${recordId}/artifacts/${t.id}`,
                spool!.path,
                {
                  'x-backplane-sha256': outcome.checksum,
                  'x-backplane-object-key': spec.storageKey,
                },
                { signal, ...(rate ? { bytesPerSecond: rate } : {}) },
              ),
            {
              backoff: new Backoff(),
              retryable: isRetryable,
              deadlineMs: RELAY_RETRY_MS,
              signal,
              onRetry: (err, attempt) =>
                log('warn', `upload to "${t.name}" failed (${errorText(err)}); retry ${attempt}`),
            },
          );
          relayed++;
          log('info', `uploaded ${humanBytes(outcome.size)} to "${t.name}" through the master`);
        } catch (err) {
          if (signal.aborted) throw signal.reason;
          log('error', `target "${t.name}": upload through the master failed: ${errorText(err)}`);
        }
      }
    }

    const stored = relayed + direct.filter((d) => d.status === 'success').length;
    if (stored === 0) throw new Error('no target holds the artifact');
    const stats = await readSourceStats(source, log);
    await chain?.keep();
    chain = undefined;
    log('info', storedLine(outcome));
    const final = await reporter.send(
      {
        status: 'success',
        fileSize: outcome.size,
        rawSize: outcome.rawBytes,
        checksum: outcome.checksum,
        ...(stats.tables ? { tableStats: stats.tables } : {}),
        ...(stats.databases ? { databaseStats: stats.databases } : {}),
        ...(warnings.count > 0 ? { errorMessage: warnings.summary() } : {}),
        targets: direct,
      },
      { final: true },
    );
    return final.accepted
      ? { success: true, result }
      : { success: false, error: `the record is already ${final.status}`, result };
  } catch (err) {
    return {
      success: false,
      error: await reportFailure(reporter, signal, err, (m) => ctx.log.warn({ recordId }, m)),
      result,
    };
  } finally {
    reporter.stop();
    if (spool) await removeSpool(spool.path).catch(() => undefined);
    await chain?.discard().catch(() => undefined);
  }
}
