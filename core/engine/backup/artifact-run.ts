import type { StorageInstance } from '@backplane/plugin-api';
import type { Compression } from '../stream/compression.ts';
import { runPipeline, type PipelineResult, type PipelineTarget } from '../stream/pipeline.ts';
import { errorText, humanBytes } from '../host/text.ts';
import { openTaskSource, type SourceContext, type SourceSpec, type TaskSource } from './task-source.ts';

/**
 * One artifact, written once, whether the master runs the task (BackupExecutor) or an agent does
 * (agent/commands/run-task.ts): open the source, name the artifact, open the targets, run the
 * pipeline with progress, and read the source's table statistics. What each side does with the
 * outcome (record copies, a manifest, relays through the master) stays with the caller.
 */

type Level = 'info' | 'warn' | 'error';

/** A target to write: `open` throws when it cannot be used (the failure is reported, the others go on). */
export interface ArtifactTarget {
  id: number | string;
  name: string;
  open: () => Promise<StorageInstance>;
}

/** Progress as both the record log and the agent wire carry it. */
export interface ArtifactProgress {
  bytesRead: number;
  bytesStored: number;
  speedBps: number;
  elapsedSeconds: number;
}

export interface ArtifactRunOptions {
  source: SourceSpec;
  sourceContext: SourceContext;
  /**
   * Called once the source is open and its raw extension known: names the artifact and lists
   * the targets to write (the master also creates the record's copies here). `description`
   * names the destinations in the log; by default, the targets that opened.
   */
  prepare: (rawExtension: string) => Promise<{ key: string; targets: ArtifactTarget[]; description?: string }>;
  /** A target that could not be opened. */
  onTargetFailed: (target: ArtifactTarget, reason: string) => void;
  compression: Compression;
  /** `age1...`; absent = no encryption. */
  recipient?: string;
  signal: AbortSignal;
  log: (level: Level, message: string) => void;
  onProgress: (progress: ArtifactProgress) => void;
  /** The error when no target opened (default: "no storage target could be opened"). */
  noTargetError?: string;
}

export interface ArtifactRun {
  key: string;
  result: PipelineResult;
  source: TaskSource;
}

export async function runArtifact(o: ArtifactRunOptions): Promise<ArtifactRun> {
  const source = await openTaskSource(o.source, { ...o.sourceContext, compression: o.compression });
  // A source failing later rejects here; the pipeline sees the same failure as a stream error.
  source.done.catch(() => undefined);
  let opened: { targets: PipelineTarget[]; instances: StorageInstance[] } | undefined;
  try {
    const { key, targets, description } = await o.prepare(source.extension);
    opened = await openTargets(targets, key, o.onTargetFailed);
    if (opened.targets.length === 0) throw new Error(o.noTargetError ?? 'no storage target could be opened');
    o.log(
      'info',
      `writing ${key} to ${description ?? opened.targets.map((t) => `"${t.name}"`).join(', ')} (${o.compression}${o.recipient ? ', age-encrypted' : ''})`,
    );
    const result = await runPipeline({
      source: source.stream,
      compression: o.compression,
      ...(source.compressed ? { precompressed: true } : {}),
      ...(source.rawBytes ? { rawBytes: source.rawBytes } : {}),
      ...(o.recipient ? { recipient: o.recipient } : {}),
      targets: opened.targets,
      signal: o.signal,
      onProgress: (p) =>
        o.onProgress({
          bytesRead: p.bytesRead,
          bytesStored: p.bytesStored,
          speedBps: Math.round(p.rate),
          elapsedSeconds: Math.round(p.elapsedMs / 1000),
        }),
    });
    // Every target failing stops the source early; its own error would hide the targets' reasons.
    if (result.status !== 'failed') await source.done;
    if (source.rawBytes && source.rawBytes() === undefined) {
      o.log(
        'warn',
        'the compressor did not report the uncompressed size: the raw size recorded is the compressed size',
      );
    }
    return { key, result, source };
  } catch (err) {
    // Nothing reads the source any more (a failed preparation, no target): stop its producer.
    source.stream.destroy();
    throw err;
  } finally {
    if (opened) await Promise.allSettled(opened.instances.map((i) => i.close?.()));
  }
}

async function openTargets(
  targets: ArtifactTarget[],
  key: string,
  onFailed: ArtifactRunOptions['onTargetFailed'],
): Promise<{ targets: PipelineTarget[]; instances: StorageInstance[] }> {
  const opened: PipelineTarget[] = [];
  const instances: StorageInstance[] = [];
  for (const target of targets) {
    try {
      const instance = await target.open();
      instances.push(instance);
      opened.push({ id: target.id, name: target.name, instance, key });
    } catch (err) {
      onFailed(target, errorText(err).slice(0, 2000));
    }
  }
  return { targets: opened, instances };
}

/** Row counts per table (one database) or per database, for deep verification; a failed read is a warning. */
export interface SourceStats {
  tables?: Record<string, number>;
  databases?: Record<string, Record<string, number>>;
}

export async function readSourceStats(
  source: TaskSource,
  log: (level: Level, message: string) => void,
): Promise<SourceStats> {
  const stats: SourceStats = {};
  const read = async <T>(fn: (() => Promise<T>) | undefined): Promise<T | undefined> => {
    if (!fn) return undefined;
    try {
      return await fn();
    } catch (err) {
      log('warn', `table row counts could not be read (${errorText(err)}); deep verification will not compare them`);
      return undefined;
    }
  };
  const tables = await read(source.tableStats);
  if (tables) stats.tables = tables;
  const databases = await read(source.databaseStats);
  if (databases) stats.databases = databases;
  return stats;
}

/** The run's last log line. */
export function storedLine(result: PipelineResult, suffix = ''): string {
  return `stored ${humanBytes(result.size)} (from ${humanBytes(result.rawBytes)}), sha256 ${result.checksum}${suffix}`;
}
