/**
 * What a retention rule would keep of a task's existing backups: a copy of the server's rule in
 * core/backup/retention-policy.ts (`decideRetention`, documented in docs/retention.md), applied
 * to the records core/backup/retention-service.ts hands it (success/partial, no delete pending,
 * `completedAt ?? startedAt`). Keep the two in step: test/console/retention-preview.test.ts runs
 * the docs' worked example. Pure (no DOM).
 */
export interface RetentionRule {
  maxBackups: number;
  retentionDays: number;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  keepYearly: number;
}

/** The record fields the preview reads (a subset of GET /api/backup/records items). */
export interface PreviewRecord {
  id: number;
  state: string;
  locked: boolean;
  deletePending: boolean;
  completedAt: string | null;
  startedAt: string | null;
}

export interface RetentionRow {
  id: number;
  at: Date;
  keep: boolean;
  /** The server's reason words: locked, newest, within …, older than …, gfs daily 2026-11-19, not selected … */
  reason: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export function isGfs(rule: RetentionRule): boolean {
  return rule.keepDaily > 0 || rule.keepWeekly > 0 || rule.keepMonthly > 0 || rule.keepYearly > 0;
}

/** The records a retention run considers: those holding an artifact (success, partial) and not already being deleted. */
export function retentionCandidates(records: readonly PreviewRecord[]): { id: number; at: Date; locked: boolean }[] {
  return records
    .filter((r) => (r.state === 'success' || r.state === 'partial') && !r.deletePending)
    .map((r) => ({ id: r.id, at: new Date(r.completedAt ?? r.startedAt ?? 0), locked: r.locked }));
}

/** The decision per record, newest first. Negative or fractional numbers (a form mid-edit) count as 0. */
export function previewRetention(
  records: readonly PreviewRecord[],
  input: RetentionRule,
  now: Date,
  timeZone = 'UTC',
): RetentionRow[] {
  const rule = sanitise(input);
  const sorted = retentionCandidates(records).sort((a, b) => b.at.getTime() - a.at.getTime() || b.id - a.id);
  const reasons = new Map<number, string>();
  const kept = new Set<number>();
  const candidates = [];
  for (const r of sorted) {
    if (r.locked) {
      kept.add(r.id);
      reasons.set(r.id, 'locked');
    } else candidates.push(r);
  }
  if (isGfs(rule)) decideGfs(candidates, rule, timeZone, kept, reasons);
  else decideSimple(candidates, rule, now, kept, reasons);
  const newest = candidates[0];
  if (newest) {
    kept.add(newest.id);
    reasons.set(newest.id, 'newest');
  }
  return sorted.map((r) => ({ id: r.id, at: r.at, keep: kept.has(r.id), reason: reasons.get(r.id) ?? 'not selected' }));
}

function sanitise(rule: RetentionRule): RetentionRule {
  const n = (v: number) => (Number.isFinite(v) && v > 0 ? Math.floor(v) : 0);
  return {
    maxBackups: n(rule.maxBackups),
    retentionDays: n(rule.retentionDays),
    keepDaily: n(rule.keepDaily),
    keepWeekly: n(rule.keepWeekly),
    keepMonthly: n(rule.keepMonthly),
    keepYearly: n(rule.keepYearly),
  };
}

type Candidate = { id: number; at: Date };

function decideSimple(
  candidates: Candidate[],
  rule: RetentionRule,
  now: Date,
  kept: Set<number>,
  reasons: Map<number, string>,
): void {
  const { maxBackups, retentionDays } = rule;
  const cutoff = retentionDays > 0 ? now.getTime() - retentionDays * DAY_MS : -Infinity;
  candidates.forEach((r, index) => {
    const withinCount = maxBackups === 0 || index < maxBackups;
    const withinAge = r.at.getTime() >= cutoff;
    const why: string[] = [];
    if (withinCount && withinAge) {
      kept.add(r.id);
      if (maxBackups > 0) why.push(`within maxBackups (${maxBackups})`);
      if (retentionDays > 0) why.push(`within ${retentionDays} days`);
      reasons.set(r.id, why.length > 0 ? why.join('; ') : 'no limit');
    } else {
      if (!withinCount) why.push(`beyond maxBackups (${maxBackups})`);
      if (!withinAge) why.push(`older than ${retentionDays} days`);
      reasons.set(r.id, why.join('; '));
    }
  });
}

interface LocalDate {
  year: number;
  month: number;
  day: number;
}

function decideGfs(
  candidates: Candidate[],
  rule: RetentionRule,
  timeZone: string,
  kept: Set<number>,
  reasons: Map<number, string>,
): void {
  const tiers = [
    { name: 'daily', limit: rule.keepDaily, period: dayKey },
    { name: 'weekly', limit: rule.keepWeekly, period: isoWeekKey },
    { name: 'monthly', limit: rule.keepMonthly, period: monthKey },
    { name: 'yearly', limit: rule.keepYearly, period: yearKey },
  ]
    .filter((t) => t.limit > 0)
    .map((tier) => ({ tier, periods: new Set<string>() }));
  const fmt = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
    timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  });
  const why = new Map<number, string[]>();
  for (const r of candidates) {
    const local = localDate(fmt, r.at);
    for (const s of tiers) {
      if (s.periods.size >= s.tier.limit) continue;
      const period = s.tier.period(local);
      // Newest first: the first record met in a period is that period's newest.
      if (s.periods.has(period)) continue;
      s.periods.add(period);
      why.set(r.id, [...(why.get(r.id) ?? []), `gfs ${s.tier.name} ${period}`]);
    }
  }
  for (const r of candidates) {
    const list = why.get(r.id);
    if (list) {
      kept.add(r.id);
      reasons.set(r.id, list.join('; '));
    } else reasons.set(r.id, 'not selected by any GFS tier');
  }
}

function localDate(fmt: Intl.DateTimeFormat, at: Date): LocalDate {
  const d: LocalDate = { year: 0, month: 0, day: 0 };
  for (const part of fmt.formatToParts(at)) {
    if (part.type === 'year' || part.type === 'month' || part.type === 'day') d[part.type] = Number(part.value);
  }
  return d;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const yearKey = (d: LocalDate) => pad(d.year, 4);
const monthKey = (d: LocalDate) => `${yearKey(d)}-${pad(d.month, 2)}`;
const dayKey = (d: LocalDate) => `${monthKey(d)}-${pad(d.day, 2)}`;

/** ISO-8601 week `YYYY-Www` of a local calendar date: the week belongs to the year of its Thursday. */
function isoWeekKey(d: LocalDate): string {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day);
  const weekday = (date.getUTCDay() + 6) % 7;
  const thursday = new Date(date.getTime() + (3 - weekday) * DAY_MS);
  const weekYear = thursday.getUTCFullYear();
  const jan1 = new Date(0);
  jan1.setUTCFullYear(weekYear, 0, 1);
  return `${pad(weekYear, 4)}-W${pad(1 + Math.floor((thursday.getTime() - jan1.getTime()) / (7 * DAY_MS)), 2)}`;
}
