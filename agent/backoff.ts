/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface BackoffOptions {
  initialMs?: number;
  maxMs?: number;
  /** [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/**
 * Exponential backoff with full jitter: the n-th wait is uniform in [0, min(max, initial * 2^n)),
 * so a fleet of agents that lost the master together does not return in lockstep.
 */
export class Backoff {
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #attempt = 0;

  constructor(options: BackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 1000;
    this.#maxMs = options.maxMs ?? 60_000;
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? sleep;
  }

  get attempt(): number {
    return this.#attempt;
  }

  /** The ceiling of the next wait (before jitter). */
  ceiling(): number {
    return Math.min(this.#maxMs, this.#initialMs * 2 ** Math.min(this.#attempt, 30));
  }

  /** The next wait in ms; advances the attempt counter. */
  next(): number {
    const delay = Math.floor(this.#random() * this.ceiling());
    this.#attempt++;
    return delay;
  }

  /** Waits the next delay; rejects with the signal's reason when it aborts. */
  wait(signal?: AbortSignal): Promise<void> {
    return this.#sleep(this.next(), signal);
  }

  reset(): void {
    this.#attempt = 0;
  }
}

export interface RetryOptions {
  backoff?: Backoff;
  signal?: AbortSignal;
  /** Whether a failure is worth another attempt; others are thrown at once. */
  retryable: (err: unknown) => boolean;
  /** Give up (throwing the last error) once this much time has passed; unbounded when absent. */
  deadlineMs?: number;
  onRetry?: (err: unknown, attempt: number) => void;
}

/** Calls `fn` until it succeeds, a failure is not retryable, the deadline passes or the signal aborts. */
export async function retryWithBackoff<T>(fn: () => Promise<T>, options: RetryOptions): Promise<T> {
  const backoff = options.backoff ?? new Backoff();
  const started = Date.now();
  for (;;) {
    try {
      const value = await fn();
      backoff.reset();
      return value;
    } catch (err) {
      if (options.signal?.aborted || !options.retryable(err)) throw err;
      if (options.deadlineMs !== undefined && Date.now() - started >= options.deadlineMs) throw err;
      options.onRetry?.(err, backoff.attempt + 1);
      await backoff.wait(options.signal);
    }
  }
}
