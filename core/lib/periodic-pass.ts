/**
 * A background pass run on an interval (monitors, scans, sweeps, collectors): calls that overlap
 * share the pass in progress, a failed pass is reported and the next one runs as planned, the
 * timer never keeps the process alive, and `stop` waits for a pass that is running.
 */
export class PeriodicPass<T> {
  readonly #pass: (now: Date) => Promise<T>;
  readonly #onError: (err: unknown) => void;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<T> | undefined;

  constructor(pass: (now: Date) => Promise<T>, onError: (err: unknown) => void) {
    this.#pass = pass;
    this.#onError = onError;
  }

  /** Runs a pass every `intervalMs` (and one at once with `immediately`); a second start does nothing. */
  start(intervalMs: number, options: { immediately?: boolean } = {}): void {
    if (this.#timer) return;
    const tick = () => void this.runOnce().catch(this.#onError);
    if (options.immediately) tick();
    this.#timer = setInterval(tick, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running?.catch(() => undefined);
  }

  runOnce(now = new Date()): Promise<T> {
    this.#running ??= this.#pass(now).finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}
