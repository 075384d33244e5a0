/**
 * Retention decisions for one task's backup records: which records survive a retention run and
 * which are deleted, with a short reason for each. Pure: no I/O, no clock (the caller passes
 * `now`), no database. The caller passes only the task's successful/partial records that still
 * hold an artifact, and carries out the deletions itself.
 *
 * Rules (docs/retention.md explains them for users):
 * - Locked records are always kept and are taken out before anything is counted.
 * - The newest unlocked record is always kept, whatever the policy.
 * - Simple policy (every keep* is 0): keep the newest `maxBackups` records (0 = no count limit)
 *   that are not older than `retentionDays` days (0 = no age limit).
 * - GFS policy (any keep* > 0) replaces the simple policy: each tier with N > 0 keeps the newest
 *   record of each of the N newest distinct days / ISO weeks / months / years, computed in the
 *   caller's time zone. The union of the tiers survives.
 * - A full that a surviving differential builds on survives too (a differential restores only
 *   with its full); a locked differential so protects its full as well.
 */

export interface RetentionPolicy {
  maxBackups: number;
  retentionDays: number;
  keepDaily: number;
  keepWeekly: number;
  keepMonthly: number;
  keepYearly: number;
}

export interface RetentionCandidate {
  id: number;
  completedAt: Date;
  locked: boolean;
  /** A differential's full (0 or absent: none). */
  baseRecordId?: number;
}

export interface RetentionDecision {
  /** Ids that survive, newest first (locked records included). */
  keep: number[];
  /** Ids to delete, newest first. */
  delete: number[];
  /** A short English reason for every input id. */
  reasons: Map<number, string>;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const POLICY_KEYS = ['maxBackups', 'retentionDays', 'keepDaily', 'keepWeekly', 'keepMonthly', 'keepYearly'] as const;

/** True when any GFS tier is on; the simple maxBackups/retentionDays rules are then ignored. */
export function isGfs(policy: RetentionPolicy): boolean {
  return policy.keepDaily > 0 || policy.keepWeekly > 0 || policy.keepMonthly > 0 || policy.keepYearly > 0;
}

export function decideRetention(
  records: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  options: { now: Date; timeZone?: string },
): RetentionDecision {
  validatePolicy(policy);
  const now = options.now;
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new RangeError('retention: options.now must be a valid Date');

  const seen = new Set<number>();
  for (const r of records) {
    if (seen.has(r.id)) throw new RangeError(`retention: duplicate record id ${r.id}`);
    seen.add(r.id);
    if (!(r.completedAt instanceof Date) || Number.isNaN(r.completedAt.getTime())) {
      throw new RangeError(`retention: record ${r.id} has an invalid completedAt`);
    }
  }

  // Newest first; the same instant is broken by the higher id (the later insert).
  const sorted = [...records].sort((a, b) => b.completedAt.getTime() - a.completedAt.getTime() || b.id - a.id);
  const reasons = new Map<number, string>();
  const kept = new Set<number>();

  const candidates: RetentionCandidate[] = [];
  for (const r of sorted) {
    if (r.locked) {
      kept.add(r.id);
      reasons.set(r.id, 'locked');
    } else {
      candidates.push(r);
    }
  }

  if (isGfs(policy)) decideGfs(candidates, policy, options.timeZone ?? 'UTC', kept, reasons);
  else decideSimple(candidates, policy, now, kept, reasons);

  // The backup that just succeeded is never deleted, whatever the policy said.
  const newest = candidates[0];
  if (newest) {
    kept.add(newest.id);
    reasons.set(newest.id, 'newest');
  }

  for (const r of sorted) {
    if (!kept.has(r.id) || !r.baseRecordId || !seen.has(r.baseRecordId) || kept.has(r.baseRecordId)) continue;
    kept.add(r.baseRecordId);
    reasons.set(r.baseRecordId, `the full of kept differential ${r.id}`);
  }

  const keep: number[] = [];
  const del: number[] = [];
  for (const r of sorted) (kept.has(r.id) ? keep : del).push(r.id);
  // Map insertion order newest first, matching keep/delete.
  const ordered = new Map<number, string>();
  for (const r of sorted) ordered.set(r.id, reasons.get(r.id) ?? 'not selected');
  return { keep, delete: del, reasons: ordered };
}

function validatePolicy(policy: RetentionPolicy): void {
  for (const key of POLICY_KEYS) {
    const v = policy[key];
    if (!Number.isSafeInteger(v) || v < 0)
      throw new RangeError(`retention: ${key} must be a whole number 0 or more, got ${String(v)}`);
  }
}

function decideSimple(
  candidates: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  now: Date,
  kept: Set<number>,
  reasons: Map<number, string>,
): void {
  const { maxBackups, retentionDays } = policy;
  const cutoff = retentionDays > 0 ? now.getTime() - retentionDays * DAY_MS : -Infinity;
  candidates.forEach((r, index) => {
    const withinCount = maxBackups === 0 || index < maxBackups;
    const withinAge = r.completedAt.getTime() >= cutoff;
    if (withinCount && withinAge) {
      kept.add(r.id);
      const why: string[] = [];
      if (maxBackups > 0) why.push(`within maxBackups (${maxBackups})`);
      if (retentionDays > 0) why.push(`within ${retentionDays} days`);
      reasons.set(r.id, why.length > 0 ? why.join('; ') : 'no limit');
    } else {
      const why: string[] = [];
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

type Tier = { name: 'daily' | 'weekly' | 'monthly' | 'yearly'; limit: number; period: (d: LocalDate) => string };

function decideGfs(
  candidates: readonly RetentionCandidate[],
  policy: RetentionPolicy,
  timeZone: string,
  kept: Set<number>,
  reasons: Map<number, string>,
): void {
  const tiers: Tier[] = [
    { name: 'daily' as const, limit: policy.keepDaily, period: dayKey },
    { name: 'weekly' as const, limit: policy.keepWeekly, period: isoWeekKey },
    { name: 'monthly' as const, limit: policy.keepMonthly, period: monthKey },
    { name: 'yearly' as const, limit: policy.keepYearly, period: yearKey },
  ].filter((t) => t.limit > 0);

  const fmt = formatterFor(timeZone);
  const why = new Map<number, string[]>();
  const state = tiers.map((tier) => ({ tier, periods: new Set<string>() }));
  for (const r of candidates) {
    const local = localDate(fmt, r.completedAt);
    for (const s of state) {
      if (s.periods.size >= s.tier.limit) continue;
      const period = s.tier.period(local);
      // Walking newest first, the first record met in a period is that period's newest.
      if (s.periods.has(period)) continue;
      s.periods.add(period);
      const list = why.get(r.id) ?? [];
      list.push(`gfs ${s.tier.name} ${period}`);
      why.set(r.id, list);
    }
  }
  for (const r of candidates) {
    const list = why.get(r.id);
    if (list) {
      kept.add(r.id);
      reasons.set(r.id, list.join('; '));
    } else {
      reasons.set(r.id, 'not selected by any GFS tier');
    }
  }
}

// Building a DateTimeFormat is far costlier than using one: one per zone, reused.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    // Throws RangeError for a zone Intl does not know.
    fmt = new Intl.DateTimeFormat('en-US-u-ca-gregory-nu-latn', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
    });
    formatters.set(timeZone, fmt);
  }
  return fmt;
}

/** The calendar date of an instant in the formatter's zone (Gregorian calendar). */
function localDate(fmt: Intl.DateTimeFormat, at: Date): LocalDate {
  let year = 0;
  let month = 0;
  let day = 0;
  for (const part of fmt.formatToParts(at)) {
    if (part.type === 'year') year = Number(part.value);
    else if (part.type === 'month') month = Number(part.value);
    else if (part.type === 'day') day = Number(part.value);
  }
  return { year, month, day };
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

function yearKey(d: LocalDate): string {
  return pad(d.year, 4);
}

function monthKey(d: LocalDate): string {
  return `${yearKey(d)}-${pad(d.month, 2)}`;
}

function dayKey(d: LocalDate): string {
  return `${monthKey(d)}-${pad(d.day, 2)}`;
}

/**
 * ISO-8601 week of a calendar date, as `YYYY-Www` with the ISO week-year: the week belongs to
 * the year of its Thursday. Plain calendar arithmetic on an already-local date (no zone math).
 */
function isoWeekKey(d: LocalDate): string {
  const date = new Date(0);
  date.setUTCFullYear(d.year, d.month - 1, d.day); // setUTCFullYear keeps years 0-99 literal
  const weekday = (date.getUTCDay() + 6) % 7; // Monday 0 .. Sunday 6
  const thursday = new Date(date.getTime() + (3 - weekday) * DAY_MS);
  const weekYear = thursday.getUTCFullYear();
  const jan1 = new Date(0);
  jan1.setUTCFullYear(weekYear, 0, 1);
  const week = 1 + Math.floor((thursday.getTime() - jan1.getTime()) / (7 * DAY_MS));
  return `${pad(weekYear, 4)}-W${pad(week, 2)}`;
}
