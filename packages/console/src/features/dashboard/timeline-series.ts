/**
 * The timeline chart's rows from GET /api/dashboard/timeline. The API leaves out days without
 * records; a chart that skips them would draw a busy week next to a quiet one as if adjacent,
 * so every UTC day of the window gets a row (zeros when nothing ran). Pure: unit-tested.
 */
export interface TimelinePoint {
  date: string;
  total: number;
  success: number;
  failed: number;
  partial: number;
}
export interface TimelineRow {
  date: string;
  success: number;
  failed: number;
  partial: number;
  total: number;
}

const DAY_MS = 86_400_000;

/** `YYYY-MM-DD` of an instant in UTC (the API groups by UTC day). */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** One row per UTC day from the window's first day (now − days) to today, oldest first. */
export function timelineSeries(points: readonly TimelinePoint[], days: number, now: number): TimelineRow[] {
  const byDay = new Map(points.map((p) => [p.date, p]));
  const rows: TimelineRow[] = [];
  const first = Date.parse(`${utcDay(now - days * DAY_MS)}T00:00:00Z`);
  for (let t = first; t <= now; t += DAY_MS) {
    const date = utcDay(t);
    const p = byDay.get(date);
    rows.push({
      date,
      success: p?.success ?? 0,
      failed: p?.failed ?? 0,
      partial: p?.partial ?? 0,
      total: p?.total ?? 0,
    });
    byDay.delete(date);
  }
  // A day the API knows but the client clock does not (clock skew): kept, in order.
  for (const p of byDay.values())
    rows.push({ date: p.date, success: p.success, failed: p.failed, partial: p.partial, total: p.total });
  return rows.sort((a, b) => a.date.localeCompare(b.date));
}

/** Totals over the window, for the chart's caption. */
export function timelineTotals(rows: readonly TimelineRow[]): {
  runs: number;
  success: number;
  failed: number;
  partial: number;
} {
  return rows.reduce(
    (s, r) => ({
      runs: s.runs + r.total,
      success: s.success + r.success,
      failed: s.failed + r.failed,
      partial: s.partial + r.partial,
    }),
    { runs: 0, success: 0, failed: 0, partial: 0 },
  );
}
