import { Cron } from 'croner';
import cronstrue from 'cronstrue';

/**
 * A cron expression as the scheduler will read it: croner parses it, exactly as the server's
 * check does (core/features/backup-tasks/task-validation.ts `cronError`), so an expression the
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

export function cronPreview(expr: string, options: CronPreviewOptions = {}): CronPreview {
  const text = expr.trim();
  if (text === '') return { kind: 'empty' };
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
  const nick: Record<string, string> = { '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *' };
  const text = nick[expr.toLowerCase()] ?? expr;
  try {
    return cronstrue.toString(text, { locale, use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false });
  } catch {
    return expr;
  }
}
