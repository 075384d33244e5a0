import { PassThrough } from 'node:stream';
import { createHash } from 'node:crypto';
import { providerErrorKind } from '@backplane/plugin-api';
import { errorText as message } from '../host/text.ts';
import type { PipelineTarget, TargetResult } from './target-types.ts';

/**
 * The pipeline's last stage: every stored chunk goes to every live target's feed, hashed and
 * counted once. The next chunk is taken only when every live target has room again (the slowest
 * paces the rest); a target failing transiently while the stream is still within the replay
 * window is restarted from byte 0; when none is left, `internal` is aborted with AllTargetsFailed,
 * which stops the whole chain.
 */

const RETRY_BACKOFF_MS = 250;

export class AllTargetsFailed extends Error {
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

export interface FanOutOptions {
  retries: number;
  replayWindow: number;
  targetBuffer: number;
  /** The caller's signal: a stop cancels every put. */
  userSignal: AbortSignal | undefined;
  /** The caller's signal or `internal`: ends waits and the chain. */
  chainSignal: AbortSignal;
  internal: AbortController;
}

export class FanOut {
  readonly hash = createHash('sha256');
  /** Stored bytes so far. */
  size = 0;
  /** The stored stream ended cleanly. */
  inputEnded = false;
  /** The chain is over (ended, failed or aborted): no more restarts. */
  finished = false;
  /** The stored stream's first bytes, while it is within the replay window; null past it. */
  replay: Buffer[] | null = [];
  readonly #o: FanOutOptions;
  readonly #states: TargetState[];
  #wake: (() => void) | undefined;

  constructor(specs: PipelineTarget[], options: FanOutOptions) {
    this.#o = options;
    options.chainSignal.addEventListener('abort', this.#changed, { once: true });
    this.#states = specs.map((spec) => {
      let settle!: () => void;
      const settled = new Promise<void>((res) => (settle = res));
      const t = { spec, attempts: 0, written: 0, live: true, settled, settle } as TargetState;
      this.#newFeed(t);
      return t;
    });
  }

  // ---- wake-ups for the fan-out loop (drain, target failure, abort) ------------------------
  readonly #changed = (): void => {
    const w = this.#wake;
    this.#wake = undefined;
    w?.();
  };

  #nextChange(): Promise<void> {
    return new Promise((res) => (this.#wake = res));
  }

  live(): TargetState[] {
    return this.#states.filter((t) => t.live);
  }

  #newFeed(t: TargetState): PassThrough {
    const feed = new PassThrough({ highWaterMark: this.#o.targetBuffer });
    feed.on('error', () => undefined); // the put reports it
    feed.on('drain', this.#changed);
    t.feed = feed;
    t.written = 0;
    return feed;
  }

  #fail(t: TargetState, err: unknown): void {
    if (!t.live) return;
    t.live = false;
    t.status = 'failed';
    t.error = message(err);
    t.feed.destroy();
    t.settle();
    this.#changed();
    if (this.live().length === 0 && !this.finished) this.#o.internal.abort(new AllTargetsFailed('every target failed'));
  }

  /** Starts every target's put. */
  startAll(): void {
    for (const t of this.#states) this.#start(t, 0);
  }

  #start(t: TargetState, delayMs: number): void {
    const { userSignal, chainSignal } = this.#o;
    t.attempts++;
    const feed = t.feed;
    const attempt = async (): Promise<{ size: number }> => {
      if (delayMs > 0) {
        await new Promise<void>((res) => {
          const timer = setTimeout(res, delayMs);
          chainSignal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              res();
            },
            { once: true },
          );
        });
        if (userSignal?.aborted) throw userSignal.reason;
      }
      return t.spec.instance.put(t.spec.key, feed, { signal: userSignal });
    };
    attempt().then(
      (res) => {
        if (!t.live || t.feed !== feed) return;
        if (!this.inputEnded) return this.#fail(t, new Error('the target finished before the end of the stream'));
        if (res.size !== this.size)
          return this.#fail(t, new Error(`the target stored ${res.size} bytes, expected ${this.size}`));
        t.live = false;
        t.status = 'success';
        t.size = res.size;
        t.settle();
        this.#changed();
      },
      (err: unknown) => {
        if (!t.live || t.feed !== feed) return;
        // After a clean end of input the whole (small) artifact is still in the window: replay it.
        const replay = this.replay;
        const canReplay = replay !== null && !(this.finished && !this.inputEnded) && !userSignal?.aborted;
        if (providerErrorKind(err) === 'transient' && t.attempts <= this.#o.retries && canReplay && replay !== null) {
          feed.destroy();
          const next = this.#newFeed(t);
          for (const chunk of replay) next.write(chunk); // bounded by the replay window
          t.written = replay.reduce((n, c) => n + c.length, 0);
          if (this.inputEnded) next.end();
          this.#start(t, RETRY_BACKOFF_MS * t.attempts);
          return;
        }
        this.#fail(t, err);
      },
    );
  }

  /** The pipeline's final stage. */
  readonly consume = async (stored: AsyncIterable<Buffer>): Promise<void> => {
    const { chainSignal, replayWindow } = this.#o;
    for await (const chunk of stored) {
      if (chainSignal.aborted) throw chainSignal.reason;
      this.hash.update(chunk);
      this.size += chunk.length;
      if (this.replay !== null) {
        this.replay.push(chunk);
        if (this.size > replayWindow) this.replay = null;
      }
      for (const t of this.live()) {
        t.feed.write(chunk);
        t.written += chunk.length;
      }
      while (!chainSignal.aborted && this.live().some((t) => t.feed.writableNeedDrain)) await this.#nextChange();
      if (chainSignal.aborted) throw chainSignal.reason;
    }
    this.inputEnded = true;
    for (const t of this.live()) t.feed.end();
  };

  /** The chain is over: no more restarts, no more wake-ups. */
  finish(): void {
    this.finished = true;
    this.#o.chainSignal.removeEventListener('abort', this.#changed);
  }

  /** Stored-format bytes the slowest live target has taken so far. */
  taken(): number {
    const stillLive = this.live();
    const taken =
      stillLive.length === 0
        ? this.size
        : Math.min(...stillLive.map((t) => t.written - t.feed.writableLength - t.feed.readableLength));
    return Math.max(0, Math.min(taken, this.size));
  }

  /** Source, stage or abort: cancel every put (a put whose body errors leaves nothing behind). */
  cancel(reason: unknown): void {
    for (const t of this.live()) t.feed.destroy(reason instanceof Error ? reason : new Error(message(reason)));
  }

  settled(): Promise<void[]> {
    return Promise.all(this.#states.map((t) => t.settled));
  }

  results(): TargetResult[] {
    return this.#states.map((t) => ({
      targetId: t.spec.id,
      name: t.spec.name,
      key: t.spec.key,
      status: t.status ?? 'failed',
      ...(t.size !== undefined ? { size: t.size } : {}),
      ...(t.error !== undefined ? { error: t.error } : {}),
      attempts: t.attempts,
    }));
  }
}
