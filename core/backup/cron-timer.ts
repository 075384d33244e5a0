import { Cron } from 'croner';
import type { Clock, ClockTimer } from '../lib/clock.ts';

/** Node's timers cannot wait longer than this; a farther fire is reached in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * Calls `onFire` at each fire of a cron pattern, timed by a `Clock`. croner computes the fire
 * times (its own timers read the system clock, which a test cannot advance); the waiting is done
 * here. Like croner, the next fire is computed from when a fire happened, so a late fire (the
 * machine slept) is followed by the next due one, not by every one missed. Throws on a pattern
 * croner refuses.
 */
export class CronTimer {
  readonly #cron: Cron;
  readonly #clock: Clock;
  readonly #onFire: (at: Date) => unknown;
  #timer: ClockTimer | undefined;
  #stopped = false;

  /** `onFire` may return the promise of the fire's work (see `Clock.setTimeout`). */
  constructor(pattern: string, options: { timezone: string; clock: Clock }, onFire: (at: Date) => unknown) {
    // Without a callback croner starts no timer of its own: it only answers nextRun.
    this.#cron = new Cron(pattern, { timezone: options.timezone, paused: true });
    this.#clock = options.clock;
    this.#onFire = onFire;
    this.#waitFor(this.#cron.nextRun(this.#clock.now()));
  }

  /** The next fire after now, or null when the pattern has none. */
  nextRun(): Date | null {
    return this.#stopped ? null : this.#cron.nextRun(this.#clock.now());
  }

  stop(): void {
    this.#stopped = true;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #waitFor(due: Date | null): void {
    if (this.#stopped || due === null) return;
    const wait = Math.min(MAX_WAIT_MS, Math.max(0, due.getTime() - this.#clock.now().getTime()));
    this.#timer = this.#clock.setTimeout(() => this.#check(due), wait, { unref: true });
  }

  #check(due: Date): unknown {
    if (this.#stopped) return undefined;
    const now = this.#clock.now();
    if (now.getTime() < due.getTime()) {
      this.#waitFor(due); // a step of a long wait, or a timer that woke early
      return undefined;
    }
    this.#waitFor(this.#cron.nextRun(now));
    return this.#onFire(now);
  }
}
