import { type CarriedEntry, type ManifestEntry, errorText, resticErrorCode } from '../core/engine/index.ts';
import type {
  LogLine,
  Progress,
  RecordUpdateInput,
  RestoreUpdateInput,
  UpdateReply,
  WireManifestEntry,
} from '../core/agent-protocol/wire.ts';
import { Backoff, retryWithBackoff } from './backoff.ts';
import { isRetryable, type MasterClient } from './master-client.ts';

export type LogLevel = 'info' | 'warn' | 'error';
export type { LogLine, Progress, UpdateReply, WireManifestEntry } from '../core/agent-protocol/wire.ts';

/** A record update or a restore update: the reporter serves both runs. */
type WireUpdate = RecordUpdateInput | RestoreUpdateInput;

/** Protocol limits per call. */
export const MAX_LOGS_PER_CALL = 500;
export const MAX_MANIFEST_PER_CALL = 2000;
/** Lines kept while the master is away; older ones give way (the count of dropped lines is logged). */
const MAX_QUEUED_LOGS = 20_000;
/** How long the final update is retried while the master is away. */
const FINAL_RETRY_MS = 10 * 60_000;

export interface UpdateReporterOptions {
  client: MasterClient;
  /** `/api/agent/records/:id` or `/api/agent/restores/:id`. */
  path: string;
  intervalMs?: number;
  /** The master answered `accepted: false`: the record or restore is over, the work must stop. */
  onRejected: (status: string) => void;
  /** Reporting trouble (never fatal for the run). */
  onError?: (message: string) => void;
}

function wireEntry(e: ManifestEntry): WireManifestEntry {
  return {
    path: e.path,
    type: e.type,
    size: e.size,
    mode: e.mode,
    mtime: e.mtime.toISOString(),
    ...(e.linkname !== undefined ? { linkname: e.linkname } : {}),
  };
}

/**
 * Batches a run's logs, progress and manifest into record (or restore) updates about once a
 * second, in order: one call at a time, each within the protocol's per-call limits. A batch
 * the master could not take because it was away is kept for the next tick.
 */
export class UpdateReporter {
  readonly #o: UpdateReporterOptions;
  #logs: LogLine[] = [];
  #dropped = 0;
  #manifest: WireManifestEntry[] = [];
  #carried: CarriedEntry[] = [];
  #progress: Progress | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** The chain of calls; each update waits for the previous one. */
  #queue: Promise<unknown> = Promise.resolve();
  #rejected = false;

  constructor(options: UpdateReporterOptions) {
    this.#o = options;
  }

  get rejected(): boolean {
    return this.#rejected;
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.flush(), this.#o.intervalMs ?? 1000);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  log(level: LogLevel, message: string): void {
    this.#logs.push({ level, message: message.slice(0, 4000) });
    if (this.#logs.length > MAX_QUEUED_LOGS) {
      this.#logs.shift();
      this.#dropped++;
    }
  }

  progress(p: Progress): void {
    this.#progress = p;
  }

  manifest(entry: ManifestEntry): void {
    this.#manifest.push(wireEntry(entry));
  }

  /** A differential's unchanged files, whose manifest rows the master takes over from the full. */
  carried(entries: CarriedEntry[]): void {
    for (const e of entries) this.#carried.push({ path: e.path, from: e.from });
  }

  #pendingManifest(): boolean {
    return this.#manifest.length > 0 || this.#carried.length > 0;
  }

  #enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #post(body: WireUpdate): Promise<UpdateReply> {
    const reply = await this.#o.client.post<UpdateReply>(this.#o.path, body);
    if (reply && reply.accepted === false && !this.#rejected) {
      this.#rejected = true;
      this.#o.onRejected(reply.status);
    }
    return reply;
  }

  #takeLogs(): LogLine[] {
    if (this.#dropped > 0) {
      this.#logs.unshift({
        level: 'warn',
        message: `${this.#dropped} log lines were dropped while the master was unreachable`,
      });
      this.#dropped = 0;
    }
    return this.#logs.splice(0, MAX_LOGS_PER_CALL);
  }

  /** Sends everything pending, in as many calls as the limits need. Failures keep the data for the next try. */
  #drain(): Promise<void> {
    return this.#enqueue(async () => {
      while (this.#logs.length > 0 || this.#pendingManifest() || this.#progress || this.#dropped > 0) {
        const logs = this.#takeLogs();
        const manifest = this.#manifest.splice(0, MAX_MANIFEST_PER_CALL);
        const carried = this.#carried.splice(0, MAX_MANIFEST_PER_CALL);
        const progress = this.#progress;
        this.#progress = undefined;
        try {
          await this.#post({
            ...(logs.length ? { logs } : {}),
            ...(manifest.length ? { manifest } : {}),
            ...(carried.length ? { carried } : {}),
            ...(progress ? { progress } : {}),
          });
        } catch (err) {
          if (isRetryable(err)) {
            this.#logs.unshift(...logs);
            this.#manifest.unshift(...manifest);
            this.#carried.unshift(...carried);
            this.#progress ??= progress;
          } else this.#o.onError?.(`an update was refused and dropped: ${errorText(err)}`);
          return;
        }
      }
    });
  }

  /** One periodic flush; never rejects. */
  async flush(): Promise<void> {
    await this.#drain().catch((err: unknown) => this.#o.onError?.(errorText(err)));
  }

  /**
   * Sends a state change (`running`, or the final update) after everything pending. The final
   * update carries the last log lines and is retried while the master is away.
   */
  async send(body: WireUpdate, options: { final?: boolean; signal?: AbortSignal } = {}): Promise<UpdateReply> {
    if (options.final) this.stop();
    const deadline = options.final ? FINAL_RETRY_MS : 60_000;
    const backoff = new Backoff();
    // Pending data first, so the manifest is complete before `success`.
    await retryWithBackoff(
      async () => {
        await this.#drain();
        if (this.#pendingManifest() || this.#logs.length > MAX_LOGS_PER_CALL)
          throw Object.assign(new Error('pending updates not delivered'), { retry: true });
      },
      {
        backoff,
        retryable: (err) => (err as { retry?: boolean }).retry === true || isRetryable(err),
        deadlineMs: deadline,
        signal: options.signal,
      },
    ).catch((err: unknown) => this.#o.onError?.(errorText(err)));
    return this.#enqueue(() =>
      retryWithBackoff(
        () => {
          const logs = this.#takeLogs();
          return this.#post({ ...body, ...(logs.length ? { logs } : {}) }).catch((err: unknown) => {
            this.#logs.unshift(...logs);
            throw err;
          });
        },
        { backoff: new Backoff(), retryable: isRetryable, deadlineMs: deadline, signal: options.signal },
      ),
    );
  }
}

/** A run's failure with the stable code the record shows (docs/repositories.md#why-a-run-failed). */
export class RunFailure extends Error {
  readonly errorCode: string;

  constructor(message: string, errorCode = '') {
    super(message);
    this.errorCode = errorCode;
  }
}

/**
 * Ends a run that failed: unless the master already ended it (then it knows), the reason is
 * logged and sent as the final `failed` update. Returns the reason for the command result.
 */
export async function reportFailure(
  reporter: UpdateReporter,
  signal: AbortSignal,
  err: unknown,
  warn: (message: string) => void,
): Promise<string> {
  const reason = signal.aborted ? errorText(signal.reason) : errorText(err);
  if (reporter.rejected) return reason;
  reporter.log('error', reason);
  const code = signal.aborted ? '' : err instanceof RunFailure ? err.errorCode : resticErrorCode(err);
  await reporter
    .send(
      { status: 'failed', errorMessage: reason.slice(0, 2000), ...(code ? { errorCode: code } : {}) },
      { final: true },
    )
    .catch((e: unknown) => warn(`the failure could not be reported: ${errorText(e)}`));
  return reason;
}
