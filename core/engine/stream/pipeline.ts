import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { compressor, type Compression } from './compression.ts';
import { encryptStream } from './encryption.ts';
import { AllTargetsFailed, FanOut } from './fan-out.ts';
import { countingCoalescer } from './counting-coalescer.ts';

/**
 * One backup's byte path: source -> compression -> age encryption -> SHA-256 -> every target
 * at once.
 *
 * Fan-out: each chunk goes to every live target; the next chunk is read only once every live
 * target has room again, so the slowest target paces the others and the source, and nothing
 * is ever held whole. A target whose put() rejects is dropped; the others carry on. When no
 * target is left the whole chain (and the source) is destroyed.
 *
 * Retries: the artifact is not buffered, so a target can only be restarted while the bytes it
 * needs can still be replayed. The first `replayWindow` bytes of the stored stream (8 MiB by
 * default) are kept; a target failing with a `transient` ProviderError while the stream is
 * still within that window is restarted from byte 0 (up to `retries` times, with a short
 * back-off). A failure past the window, or of any other kind, marks the target `failed` (the
 * record becomes `partial`). Artifacts smaller than the window are thus retryable end to end.
 *
 * Errors: target failures are reported in `results` (never thrown; `status` is `failed` when
 * every target failed). A failing source or stage and an aborted `signal` reject, after every
 * put has been cancelled, so no target keeps an object under its key.
 */

import type { PipelineTarget, TargetResult } from './target-types.ts';

export type { PipelineTarget, TargetResult };

export interface PipelineProgress {
  /** Bytes read from the source (uncompressed). */
  bytesRead: number;
  /** Stored-format bytes the slowest live target has taken so far. */
  bytesStored: number;
  /** Source bytes per second over the last interval. */
  rate: number;
  elapsedMs: number;
}

export interface PipelineResult {
  /** `success`: every target holds the artifact; `partial`: some do; `failed`: none. */
  status: 'success' | 'partial' | 'failed';
  /** Stored bytes (after compression and encryption). Meaningful unless status is `failed`. */
  size: number;
  /** SHA-256 (hex) of the stored bytes. Meaningful unless status is `failed`. */
  checksum: string;
  /** Bytes read from the source. */
  rawBytes: number;
  results: TargetResult[];
}

export interface PipelineOptions {
  source: Readable;
  compression: Compression;
  /**
   * The source is compressed already (a file tar piped into the compressor program by the OS,
   * see gnu-tar-source.ts): no compression stage here, and the raw size comes from `rawBytes`.
   */
  precompressed?: boolean;
  /**
   * Uncompressed bytes read so far, when the source knows better than the bytes it hands
   * over; undefined while it cannot tell (the bytes handed over count instead).
   */
  rawBytes?: () => number | undefined;
  compressionLevel?: number;
  /** `age1...`; absent = no encryption. */
  recipient?: string;
  targets: PipelineTarget[];
  onProgress?: (p: PipelineProgress) => void;
  /** Extra attempts per target for transient failures within the replay window (default 2). */
  retries?: number;
  signal?: AbortSignal;
  /** Default 1000 ms. */
  progressIntervalMs?: number;
  /** Bytes kept for replaying to a restarted target (default 8 MiB). */
  replayWindow?: number;
  /** Per-target buffer (default 1 MiB). */
  targetBuffer?: number;
}

const DEFAULT_REPLAY_WINDOW = 8 * 1024 * 1024;
const DEFAULT_TARGET_BUFFER = 1024 * 1024;

export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const { source, targets: specs } = options;
  if (specs.length === 0) {
    source.destroy();
    throw new Error('runPipeline: no targets');
  }
  const userSignal = options.signal;
  const internal = new AbortController();
  const chainSignal = userSignal ? AbortSignal.any([userSignal, internal.signal]) : internal.signal;
  const fan = new FanOut(specs, {
    retries: options.retries ?? 2,
    replayWindow: options.replayWindow ?? DEFAULT_REPLAY_WINDOW,
    targetBuffer: options.targetBuffer ?? DEFAULT_TARGET_BUFFER,
    userSignal,
    chainSignal,
    internal,
  });
  const counter = countingCoalescer();
  const known = options.rawBytes;
  const rawBytes = known ? () => known() ?? counter.bytes() : counter.bytes;
  const report = progressReporter(options, rawBytes, fan);

  fan.startAll();
  const compress = options.precompressed ? undefined : compressor(options.compression, options.compressionLevel);
  const encrypt = options.recipient ? encryptStream(options.recipient) : undefined;
  const count = counter.stream;
  const consume = fan.consume;
  const opts = { signal: chainSignal };
  let chainError: unknown;
  try {
    if (compress && encrypt) await pipeline(source, count, compress, encrypt, consume, opts);
    else if (compress) await pipeline(source, count, compress, consume, opts);
    else if (encrypt) await pipeline(source, count, encrypt, consume, opts);
    else await pipeline(source, count, consume, opts);
  } catch (err) {
    chainError = err;
  } finally {
    fan.finish();
  }

  try {
    if (chainError !== undefined) {
      const allFailed =
        internal.signal.aborted && internal.signal.reason instanceof AllTargetsFailed && !userSignal?.aborted;
      if (!allFailed) {
        const reason = userSignal?.aborted ? userSignal.reason : chainError;
        fan.cancel(reason);
        await Promise.allSettled([fan.settled()]);
        throw reason;
      }
      source.destroy();
    }
    await fan.settled();
  } finally {
    report.stop();
    fan.replay = null;
  }
  report.now();

  const results = fan.results();
  const ok = results.filter((r) => r.status === 'success').length;
  return {
    status: ok === results.length ? 'success' : ok === 0 ? 'failed' : 'partial',
    size: fan.size,
    checksum: fan.hash.digest('hex'),
    rawBytes: rawBytes(),
    results,
  };
}

/** Reports progress every interval (and once more at the end); a failing consumer never breaks the backup. */
function progressReporter(
  options: PipelineOptions,
  rawBytes: () => number,
  fan: FanOut,
): { now: () => void; stop: () => void } {
  const started = Date.now();
  let lastRead = 0;
  let lastAt = started;
  const now = (): void => {
    if (!options.onProgress) return;
    const at = Date.now();
    const read = rawBytes();
    const rate = at > lastAt ? ((read - lastRead) * 1000) / (at - lastAt) : 0;
    lastRead = read;
    lastAt = at;
    try {
      options.onProgress({ bytesRead: read, bytesStored: fan.taken(), rate, elapsedMs: at - started });
    } catch {
      // a progress consumer must not break the backup
    }
  };
  const timer = options.onProgress ? setInterval(now, options.progressIntervalMs ?? 1000) : undefined;
  timer?.unref();
  return {
    now,
    stop: () => {
      if (timer) clearInterval(timer);
    },
  };
}
