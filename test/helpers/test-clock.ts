import { setImmediate as turn } from 'node:timers/promises';
import type { Clock, ClockTimer } from '../../core/lib/clock.ts';

interface Pending {
  at: number;
  seq: number;
  fn: () => unknown;
}

/**
 * A clock that stands still until the test advances it: leases lapse and cron fires come when
 * the test says, without waiting in real time. Starts at the real time of its creation (rows the
 * ORM stamps with the real time stay comparable).
 */
export class TestClock implements Clock {
  #now: number;
  #seq = 0;
  readonly #timers = new Map<ClockTimer, Pending>();

  constructor(start = new Date()) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  setTimeout(fn: () => unknown, ms: number): ClockTimer {
    const handle = {} as ClockTimer;
    this.#timers.set(handle, { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn });
    return handle;
  }

  clearTimeout(timer: ClockTimer | undefined): void {
    if (timer) this.#timers.delete(timer);
  }

  /** Timers waiting (a test can check a service armed or dropped one). */
  get pending(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, running each timer that falls due on the way at its own time, in
   * order (also those set by a timer that ran). A timer's returned promise is awaited before the
   * next one runs.
   */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (let step = 0; ; step++) {
      if (step === 100_000) throw new Error('TestClock.advance: timers keep re-arming without time passing');
      let next: [ClockTimer, Pending] | undefined;
      for (const entry of this.#timers) {
        if (
          entry[1].at <= until &&
          (!next || entry[1].at < next[1].at || (entry[1].at === next[1].at && entry[1].seq < next[1].seq))
        )
          next = entry;
      }
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now = Math.max(this.#now, next[1].at);
      await next[1].fn(); // the work a timer starts ends before time moves on
      await turn();
    }
    this.#now = until;
  }
}
