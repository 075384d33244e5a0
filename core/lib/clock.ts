/** An opaque handle of a timer set through a `Clock`. */
export interface ClockTimer {
  readonly [clockTimer]: true;
}
declare const clockTimer: unique symbol;

/**
 * Time as the background services see it (command leases, the lease monitor, the cron
 * scheduler): the system clock in production, a clock the test advances in tests, so that
 * lease and schedule tests need not wait in real time.
 */
export interface Clock {
  now(): Date;
  /**
   * Calls `fn` once `ms` have passed on this clock. `unref`: the timer alone does not keep the
   * process alive. `fn` may return the promise of the work it starts: the system clock ignores
   * it, a test clock waits for it before time moves on (so a test sees that work finished).
   */
  setTimeout(fn: () => unknown, ms: number, options?: { unref?: boolean }): ClockTimer;
  clearTimeout(timer: ClockTimer | undefined): void;
}

/** The real clock: `Date` and Node's timers. */
export const systemClock: Clock = {
  now: () => new Date(),
  setTimeout(fn, ms, options) {
    const timer = setTimeout(fn, ms);
    if (options?.unref) timer.unref();
    return timer as unknown as ClockTimer;
  },
  clearTimeout(timer) {
    if (timer) clearTimeout(timer as unknown as NodeJS.Timeout);
  },
};
