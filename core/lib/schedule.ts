import { Cron } from 'croner';

/**
 * A task's schedule as the scheduler reads it: a cron expression (croner: 5 fields, 6 with
 * leading seconds, `@daily`-style nicknames) or `@every <duration>` (robfig/cron's
 * descriptor, a Go duration such as `1h`, `90m` or `1h30m`), which croner does not know.
 *
 * `@every` fires on a fixed grid: the multiples of the duration since 1970-01-01T00:00Z. robfig
 * counts from when its scheduler started, so a restart shifts its fires; the grid does not move,
 * and previews, next-run times and catch-up runs agree with the fires. The console's preview
 * (packages/console/src/features/tasks/cron-preview.ts) reads `@every` the same way; a test
 * holds the two to each other.
 */
export interface Schedule {
  /** The first fire strictly after `from`, or null when there is none. */
  nextRun(from: Date): Date | null;
}

/** A schedule that cannot be read; the message says why (it goes into a 400's details). */
export class ScheduleError extends Error {}

const EVERY = /^@every(\s|$)/i;
/** Go's units (time.ParseDuration), in milliseconds. */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
/** Go's largest duration (about 292 years). */
const MAX_MS = 9_223_372_036_854;

/** The milliseconds of an `@every` duration, whole seconds as robfig keeps them; throws when malformed. */
export function everyDurationMs(text: string): number {
  if (text === '') throw new ScheduleError('"@every" needs a duration (e.g. @every 1h)');
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m)
      throw new ScheduleError(
        `"@every ${text}": "${text.slice(at)}" is not a duration (a number and a unit: h, m, s, ms; e.g. 1h30m)`,
      );
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (ms > MAX_MS) throw new ScheduleError(`"@every ${text}" is longer than the longest duration (about 292 years)`);
  const whole = Math.floor(ms / 1000) * 1000;
  if (whole < 1000) throw new ScheduleError(`"@every ${text}" is shorter than one second`);
  return whole;
}

class EverySchedule implements Schedule {
  readonly #ms: number;
  constructor(ms: number) {
    this.#ms = ms;
  }
  nextRun(from: Date): Date {
    return new Date((Math.floor(from.getTime() / this.#ms) + 1) * this.#ms);
  }
}

class CronSchedule implements Schedule {
  readonly #cron: Cron;
  constructor(expr: string, timezone: string | undefined) {
    // Without a callback croner starts no timer of its own: it only answers nextRun.
    try {
      this.#cron = new Cron(expr, { paused: true, ...(timezone ? { timezone } : {}) });
    } catch (err) {
      throw new ScheduleError((err as Error).message.replace(/^CronPattern: /, ''));
    }
  }
  nextRun(from: Date): Date | null {
    return this.#cron.nextRun(from);
  }
}

/** Reads an expression in a time zone (the server's when absent; `@every` ignores it). Throws ScheduleError. */
export function parseSchedule(expr: string, timezone?: string): Schedule {
  const text = expr.trim();
  if (EVERY.test(text)) return new EverySchedule(everyDurationMs(text.slice('@every'.length).trim()));
  return new CronSchedule(expr, timezone);
}

/** Why an expression cannot be scheduled, or undefined when it can. */
export function scheduleError(expr: string): string | undefined {
  try {
    parseSchedule(expr);
    return undefined;
  } catch (err) {
    if (err instanceof ScheduleError) return err.message;
    throw err;
  }
}
