import { openTaskSource, type SourceSpec } from '../../core/backup/task-source.ts';
import { RunWarnings } from '../../core/backup/run-warnings.ts';
import type { Compression } from '../../core/engine/compression.ts';
import { runPipeline, type PipelineResult, type PipelineTarget } from '../../core/engine/pipeline.ts';
import type { StorageInstance } from '@backplane/plugin-api';
import { errorText, humanBytes } from '../../core/lib/text.ts';
import { Backoff, retryWithBackoff } from '../backoff.ts';
import { isRetryable } from '../master-client.ts';
import { pacedStorage, parseBandwidth } from '../throttle.ts';
import { removeSpool, SpoolStorage, spoolDir, spoolPath } from '../spool.ts';
import { UpdateReporter, reportFailure, type LogLevel } from '../update-reporter.ts';
import { payloadId, providerDeps, type CommandContext, type CommandOutcome } from './command-types.ts';

/** `GET /api/agent/tasks/:taskId?recordId=N` */
export interface TaskSpec {
  recordId: number;
  taskId: number;
  name: string;
  source: SourceSpec & { dbPassword?: string | null };
  compression: Compression;
  encrypt: boolean;
  recipient: string | null;
  storageKey: string;
  rawExtension: string;
  targets: Array<{ id: number; name: string; mode: 'relay' | 'direct'; type: string; config?: Record<string, unknown> }>;
  bandwidthLimit: string;
}

interface DirectResult { targetId: number; status: 'success' | 'failed'; size?: number; error?: string }

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
  const opened: StorageInstance[] = [];

  try {
    const spec = await client.get<TaskSpec>(`/api/agent/tasks/${taskId}?recordId=${recordId}`, { signal });
    const running = await reporter.send({ status: 'running' }, { signal });
    if (!running.accepted) return { success: false, error: `the record is already ${running.status}`, result };
    reporter.start();
    log('info', `backup of task "${spec.name}" (${spec.source.type}) started on this node`);

    const deps = providerDeps(ctx, log);
    // The node's bandwidth limit paces what leaves the node: relayed and direct uploads alike.
    const rate = parseBandwidth(spec.bandwidthLimit);
    const direct: DirectResult[] = [];
    const targets: PipelineTarget[] = [];
    for (const t of spec.targets.filter((x) => x.mode === 'direct')) {
      try {
        const type = ctx.registries.storageTypes.get(t.type);
        if (!type) throw new Error(`storage type "${t.type}" is not installed on this node`);
        const instance = await type.create(t.config ?? {}, deps);
        opened.push(instance);
        targets.push({ id: t.id, name: t.name, instance: rate ? pacedStorage(instance, rate) : instance, key: spec.storageKey });
      } catch (err) {
        direct.push({ targetId: t.id, status: 'failed', error: errorText(err).slice(0, 2000) });
        log('error', `target "${t.name}": ${errorText(err)}`);
      }
    }
    const relays = spec.targets.filter((x) => x.mode === 'relay');
    if (relays.length > 0) {
      spool = new SpoolStorage(spoolPath(ctx.tempDir, `record-${recordId}`));
      targets.push({ id: SPOOL_ID, name: 'relay spool', instance: spool, key: spec.storageKey });
    }
    if (targets.length === 0) throw new Error('no storage target could be opened on this node');

    const warnings = new RunWarnings();
    const source = await openTaskSource(spec.source, {
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
    });
    // A later source failure also reaches the pipeline as a stream error; this copy must not go unhandled.
    source.done.catch(() => undefined);
    log('info', `writing ${spec.storageKey} to ${spec.targets.map((t) => `"${t.name}" (${t.mode})`).join(', ')} (${spec.compression}${spec.encrypt ? ', age-encrypted' : ''})`);

    if (spec.encrypt && !spec.recipient) throw new Error('the task is encrypted but the master sent no recipient');
    let outcome: PipelineResult;
    try {
      outcome = await runPipeline({
        source: source.stream,
        compression: spec.compression,
        ...(spec.encrypt && spec.recipient ? { recipient: spec.recipient } : {}),
        targets,
        signal,
        onProgress: (p) => reporter.progress({ bytesRead: p.bytesRead, bytesStored: p.bytesStored, speedBps: Math.round(p.rate), elapsedSeconds: Math.round(p.elapsedMs / 1000) }),
      });
      if (outcome.status !== 'failed') await source.done;
    } finally {
      await Promise.allSettled(opened.map((i) => i.close?.()));
      opened.length = 0;
    }

    for (const r of outcome.results) {
      if (r.targetId === SPOOL_ID) continue;
      direct.push({ targetId: r.targetId as number, status: r.status, ...(r.size !== undefined ? { size: r.size } : {}), ...(r.error ? { error: r.error.slice(0, 2000) } : {}) });
      if (r.status === 'failed') log('error', `target "${r.name}" failed after ${r.attempts} attempt(s): ${r.error ?? 'failed'}`);
    }
    const spoolResult = outcome.results.find((r) => r.targetId === SPOOL_ID);
    if (spoolResult?.status === 'failed') log('error', `the relay spool failed: ${spoolResult.error ?? 'failed'}`);
    if (outcome.status === 'failed') throw new Error(outcome.results.map((r) => `${r.name}: ${r.error ?? 'failed'}`).join('; '));

    let relayed = 0;
    if (spool && spoolResult?.status === 'success') {
      for (const t of relays) {
        if (signal.aborted) throw signal.reason;
        try {
          await retryWithBackoff(() => client.putFile(`/api/agent/records/${recordId}/artifacts/${t.id}`, spool!.path, {
            'x-backplane-sha256': outcome.checksum,
            'x-backplane-object-key': spec.storageKey,
          }, { signal, ...(rate ? { bytesPerSecond: rate } : {}) }), {
            backoff: new Backoff(),
            retryable: isRetryable,
            deadlineMs: RELAY_RETRY_MS,
            signal,
            onRetry: (err, attempt) => log('warn', `upload to "${t.name}" failed (${errorText(err)}); retry ${attempt}`),
          });
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
    let tableStats: Record<string, number> | undefined;
    if (source.tableStats) {
      try {
        tableStats = await source.tableStats();
      } catch (err) {
        log('warn', `table row counts could not be read (${errorText(err)}); deep verification will not compare them`);
      }
    }
    let databaseStats: Record<string, Record<string, number>> | undefined;
    if (source.databaseStats) {
      try {
        databaseStats = await source.databaseStats();
      } catch (err) {
        log('warn', `table row counts could not be read (${errorText(err)}); deep verification will not compare them`);
      }
    }
    log('info', `stored ${humanBytes(outcome.size)} (from ${humanBytes(outcome.rawBytes)}), sha256 ${outcome.checksum}`);
    const final = await reporter.send({
      status: 'success',
      fileSize: outcome.size,
      rawSize: outcome.rawBytes,
      checksum: outcome.checksum,
      ...(tableStats ? { tableStats } : {}),
      ...(databaseStats ? { databaseStats } : {}),
      ...(warnings.count > 0 ? { errorMessage: warnings.summary() } : {}),
      targets: direct,
    }, { final: true });
    return final.accepted ? { success: true, result } : { success: false, error: `the record is already ${final.status}`, result };
  } catch (err) {
    return { success: false, error: await reportFailure(reporter, signal, err, (m) => ctx.log.warn({ recordId }, m)), result };
  } finally {
    reporter.stop();
    await Promise.allSettled(opened.map((i) => i.close?.()));
    if (spool) await removeSpool(spool.path).catch(() => undefined);
  }
}
