import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { providerErrorKind, type StorageInstance } from '@backplane/plugin-api';
import { compressor, type Compression } from './compression.ts';
import { encryptStream } from './encryption.ts';
import { errorText as message } from '../lib/text.ts';

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

export interface PipelineTarget {
  id: number | string;
  name: string;
  instance: StorageInstance;
  key: string;
}

export interface PipelineProgress {
  /** Bytes read from the source (uncompressed). */
  bytesRead: number;
  /** Stored-format bytes the slowest live target has taken so far. */
  bytesStored: number;
  /** Source bytes per second over the last interval. */
  rate: number;
  elapsedMs: number;
}

export interface TargetResult {
  targetId: number | string;
  name: string;
  key: string;
  status: 'success' | 'failed';
  /** Stored bytes, as the target reported them (success only). */
  size?: number;
  error?: string;
  attempts: number;
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
const RETRY_BACKOFF_MS = 250;
const COALESCE_BYTES = 64 * 1024;

class AllTargetsFailed extends Error {
  override name = 'AllTargetsFailed';
}

interface TargetState {
  spec: PipelineTarget;
  feed: PassThrough;
  attempts: number;
  /** Bytes written into the current feed. */
  written: number;
  live: boolean;
  status?: 'success' | 'failed';
  size?: number;
  error?: string;
  settled: Promise<void>;
  settle: () => void;
}


export async function runPipeline(options: PipelineOptions): Promise<PipelineResult> {
  const { source, targets: specs } = options;
  if (specs.length === 0) {
    source.destroy();
    throw new Error('runPipeline: no targets');
  }
  const retries = options.retries ?? 2;
  const replayWindow = options.replayWindow ?? DEFAULT_REPLAY_WINDOW;
  const targetBuffer = options.targetBuffer ?? DEFAULT_TARGET_BUFFER;
  const userSignal = options.signal;
  const internal = new AbortController();
  const chainSignal = userSignal ? AbortSignal.any([userSignal, internal.signal]) : internal.signal;

  const hash = createHash('sha256');
  let rawBytes = 0;
  let size = 0;
  let inputEnded = false;
  let finished = false; // the chain is over (ended, failed or aborted): no more restarts
  /** The stored stream's first bytes, while it is within the replay window; null past it. */
  let replay: Buffer[] | null = [];

  // ---- wake-ups for the fan-out loop (drain, target failure, abort) ------------------------
  let wake: (() => void) | undefined;
  const changed = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const nextChange = (): Promise<void> => new Promise((res) => (wake = res));
  chainSignal.addEventListener('abort', changed, { once: true });

  const live = (): TargetState[] => states.filter((t) => t.live);

  const newFeed = (t: TargetState): PassThrough => {
    const feed = new PassThrough({ highWaterMark: targetBuffer });
    feed.on('error', () => undefined); // the put reports it
    feed.on('drain', changed);
    t.feed = feed;
    t.written = 0;
    return feed;
  };

  const fail = (t: TargetState, err: unknown): void => {
    if (!t.live) return;
    t.live = false;
    t.status = 'failed';
    t.error = message(err);
    t.feed.destroy();
    t.settle();
    changed();
    if (live().length === 0 && !finished) internal.abort(new AllTargetsFailed('every target failed'));
  };

  const start = (t: TargetState, delayMs: number): void => {
    t.attempts++;
    const feed = t.feed;
    const attempt = async (): Promise<{ size: number }> => {
      if (delayMs > 0) {
        await new Promise<void>((res) => {
          const timer = setTimeout(res, delayMs);
          chainSignal.addEventListener('abort', () => { clearTimeout(timer); res(); }, { once: true });
        });
        if (userSignal?.aborted) throw userSignal.reason;
      }
      return t.spec.instance.put(t.spec.key, feed, { signal: userSignal });
    };
    attempt().then(
      (res) => {
        if (!t.live || t.feed !== feed) return;
        if (!inputEnded) return fail(t, new Error('the target finished before the end of the stream'));
        if (res.size !== size) return fail(t, new Error(`the target stored ${res.size} bytes, expected ${size}`));
        t.live = false;
        t.status = 'success';
        t.size = res.size;
        t.settle();
        changed();
      },
      (err: unknown) => {
        if (!t.live || t.feed !== feed) return;
        // After a clean end of input the whole (small) artifact is still in the window: replay it.
        const canReplay = replay !== null && !(finished && !inputEnded) && !userSignal?.aborted;
        if (providerErrorKind(err) === 'transient' && t.attempts <= retries && canReplay && replay !== null) {
          feed.destroy();
          const next = newFeed(t);
          for (const chunk of replay) next.write(chunk); // bounded by the replay window
          t.written = replay.reduce((n, c) => n + c.length, 0);
          if (inputEnded) next.end();
          start(t, RETRY_BACKOFF_MS * t.attempts);
          return;
        }
        fail(t, err);
      },
    );
  };

  const states: TargetState[] = specs.map((spec) => {
    let settle!: () => void;
    const settled = new Promise<void>((res) => (settle = res));
    const t = { spec, attempts: 0, written: 0, live: true, settled, settle } as TargetState;
    newFeed(t);
    return t;
  });

  // ---- progress ----------------------------------------------------------------------------
  const started = Date.now();
  let lastRead = 0;
  let lastAt = started;
  const report = (): void => {
    if (!options.onProgress) return;
    const now = Date.now();
    const stillLive = live();
    const taken = stillLive.length === 0 ? size : Math.min(...stillLive.map((t) => t.written - t.feed.writableLength - t.feed.readableLength));
    const rate = now > lastAt ? ((rawBytes - lastRead) * 1000) / (now - lastAt) : 0;
    lastRead = rawBytes;
    lastAt = now;
    try {
      options.onProgress({ bytesRead: rawBytes, bytesStored: Math.max(0, Math.min(taken, size)), rate, elapsedMs: now - started });
    } catch {
      // a progress consumer must not break the backup
    }
  };
  const timer = options.onProgress ? setInterval(report, options.progressIntervalMs ?? 1000) : undefined;
  timer?.unref();

  // ---- the chain ---------------------------------------------------------------------------
  // Counts source bytes and hands the compressor 64 KiB pieces: a tar of small files arrives
  // as header/data/padding fragments, and each fragment is a round trip through zlib.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      rawBytes += chunk.length;
      if (pendingBytes === 0 && chunk.length >= COALESCE_BYTES) return cb(null, chunk);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < COALESCE_BYTES) return cb();
      const out = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      cb(null, out);
    },
    flush(cb) {
      if (pendingBytes > 0) this.push(Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
      cb();
    },
  });

  async function fanOut(stored: AsyncIterable<Buffer>): Promise<void> {
    for await (const chunk of stored) {
      if (chainSignal.aborted) throw chainSignal.reason;
      hash.update(chunk);
      size += chunk.length;
      if (replay !== null) {
        replay.push(chunk);
        if (size > replayWindow) replay = null;
      }
      for (const t of live()) {
        t.feed.write(chunk);
        t.written += chunk.length;
      }
      while (!chainSignal.aborted && live().some((t) => t.feed.writableNeedDrain)) await nextChange();
      if (chainSignal.aborted) throw chainSignal.reason;
    }
    inputEnded = true;
    for (const t of live()) t.feed.end();
  }

  for (const t of states) start(t, 0);
  const compress = compressor(options.compression, options.compressionLevel);

  let chainError: unknown;
  try {
    if (options.recipient) await pipeline(source, counter, compress, encryptStream(options.recipient), fanOut, { signal: chainSignal });
    else await pipeline(source, counter, compress, fanOut, { signal: chainSignal });
  } catch (err) {
    chainError = err;
  } finally {
    finished = true;
    chainSignal.removeEventListener('abort', changed);
  }

  try {
    if (chainError !== undefined) {
      const allFailed = internal.signal.aborted && internal.signal.reason instanceof AllTargetsFailed && !userSignal?.aborted;
      if (!allFailed) {
        // Source, stage or abort: cancel every put (a put whose body errors leaves nothing behind).
        const reason = userSignal?.aborted ? userSignal.reason : chainError;
        for (const t of live()) {
          t.feed.destroy(reason instanceof Error ? reason : new Error(message(reason)));
        }
        await Promise.allSettled(states.map((t) => t.settled));
        throw reason;
      }
      source.destroy();
    }
    await Promise.all(states.map((t) => t.settled));
  } finally {
    if (timer) clearInterval(timer);
    replay = null;
  }
  report();

  const results: TargetResult[] = states.map((t) => ({
    targetId: t.spec.id,
    name: t.spec.name,
    key: t.spec.key,
    status: t.status ?? 'failed',
    ...(t.size !== undefined ? { size: t.size } : {}),
    ...(t.error !== undefined ? { error: t.error } : {}),
    attempts: t.attempts,
  }));
  const ok = results.filter((r) => r.status === 'success').length;
  return {
    status: ok === results.length ? 'success' : ok === 0 ? 'failed' : 'partial',
    size,
    checksum: hash.digest('hex'),
    rawBytes,
    results,
  };
}
