import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/**
 * A schedule as the scheduler will read it: croner parses a cron expression and `@every` is read
 * on its grid, exactly as the server's check does (core/lib/schedule.ts), so an expression the
 * preview accepts is one the server accepts. Pure (no DOM): tested in test/console/cron-preview.test.ts.
 */
export type CronPreview =
  | { kind: 'empty' }
  | { kind: 'invalid'; error: string }
  | { kind: 'valid'; description: string; next: Date[] };

export interface CronPreviewOptions {
  /** The instant to count from (tests pass a fixed one). */
  from?: Date;
  /** How many next runs to list. */
  count?: number;
  /** IANA zone the scheduler reads schedules in (the `timezone` setting); the browser's when absent. */
  timeZone?: string;
  /** cronstrue's locale ('en' is built in). */
  locale?: string;
}

/** Go's units (robfig's `@every` takes a Go duration), in milliseconds. */
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
const MAX_MS = 9_223_372_036_854;

/**
 * `@every <duration>` (BackupX's robfig/cron descriptor, which croner does not know), read as
 * the server reads it (core/lib/schedule.ts; test/console/cron-preview.test.ts holds the two to
 * each other): whole seconds, at least one, on a fixed grid of multiples of the duration since
 * 1970-01-01T00:00Z. The duration in milliseconds, or the server's words for why not.
 */
export function everyDuration(text: string): number | { error: string } {
  if (text === '') return { error: '"@every" needs a duration (e.g. @every 1h)' };
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m)
      return {
        error: `"@every ${text}": "${text.slice(at)}" is not a duration (a number and a unit: h, m, s, ms; e.g. 1h30m)`,
      };
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  if (ms > MAX_MS) return { error: `"@every ${text}" is longer than the longest duration (about 292 years)` };
  const whole = Math.floor(ms / 1000) * 1000;
  return whole < 1000 ? { error: `"@every ${text}" is shorter than one second` } : whole;
}

function everyPreview(text: string, options: CronPreviewOptions): CronPreview {
  const duration = text.slice('@every'.length).trim();
  const ms = everyDuration(duration);
  if (typeof ms !== 'number') return { kind: 'invalid', error: ms.error };
  const first = Math.floor((options.from ?? new Date()).getTime() / ms) + 1;
  const next = Array.from({ length: options.count ?? 5 }, (_, i) => new Date((first + i) * ms));
  return {
    kind: 'valid',
    description: (options.locale ?? 'en').startsWith('zh') ? `每 ${duration}` : `Every ${duration}`,
    next,
  };
}

export function cronPreview(expr: string, options: CronPreviewOptions = {}): CronPreview {
  const text = expr.trim();
  if (text === '') return { kind: 'empty' };
  if (/^@every(\s|$)/i.test(text)) return everyPreview(text, options);
  let job: Cron;
  try {
    job = new Cron(text, { paused: true, ...(options.timeZone ? { timezone: options.timeZone } : {}) });
  } catch (err) {
    return { kind: 'invalid', error: (err as Error).message.replace(/^CronPattern: /, '') };
  }
  try {
    const next = job.nextRuns(options.count ?? 5, options.from ?? new Date());
    return { kind: 'valid', description: describeCron(text, options.locale), next };
  } finally {
    job.stop();
  }
}

/** Human-readable text; falls back to the expression itself when cronstrue cannot phrase it (croner accepts more, e.g. nicknames). */
export function describeCron(expr: string, locale = 'en'): string {
  const nick: Record<string, string> = {
    '@yearly': '0 0 1 1 *',
    '@annually': '0 0 1 1 *',
    '@monthly': '0 0 1 * *',
    '@weekly': '0 0 * * 0',
    '@daily': '0 0 * * *',
    '@midnight': '0 0 * * *',
    '@hourly': '0 * * * *',
  };
  const text = nick[expr.toLowerCase()] ?? expr;
  try {
    return cronstrue.toString(text, {
      locale,
      use24HourTimeFormat: true,
      throwExceptionOnParseError: true,
      verbose: false,
    });
  } catch {
    return expr;
  }
}
