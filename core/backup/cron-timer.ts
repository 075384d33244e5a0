import { parseSchedule, type Schedule } from '../lib/schedule.ts';
import type { Clock, ClockTimer } from '../lib/clock.ts';

/** Node's timers cannot wait longer than this; a farther fire is reached in steps. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/**
 * Calls `onFire` at each fire of a schedule (a cron pattern or `@every`), timed by a `Clock`.
 * The schedule computes the fire times (croner's own timers read the system clock, which a test
 * cannot advance); the waiting is done here. Like croner, the next fire is computed from when a
 * fire happened, so a late fire (the machine slept) is followed by the next due one, not by
 * every one missed. Throws a ScheduleError on an expression that cannot be scheduled.
 */
export class CronTimer {
  readonly #schedule: Schedule;
  readonly #clock: Clock;
  readonly #onFire: (at: Date) => unknown;
  #timer: ClockTimer | undefined;
  #stopped = false;

  /** `onFire` may return the promise of the fire's work (see `Clock.setTimeout`). */
  constructor(pattern: string, options: { timezone: string; clock: Clock }, onFire: (at: Date) => unknown) {
    this.#schedule = parseSchedule(pattern, options.timezone);
    this.#clock = options.clock;
    this.#onFire = onFire;
    this.#waitFor(this.#schedule.nextRun(this.#clock.now()));
  }

  /** The next fire after now, or null when the pattern has none. */
  nextRun(): Date | null {
    return this.#stopped ? null : this.#schedule.nextRun(this.#clock.now());
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
    this.#waitFor(this.#schedule.nextRun(now));
    return this.#onFire(now);
  }
}
