import type { EntityManager } from '@mikro-orm/core';
import { AggregateSql, num, timeOf } from '../db/aggregate-sql.ts';
import type { RecordStatus } from '../db/entities/backup-record.ts';

/** What the history proves about one task: its runs in a window, its last success, its last measured restore. */
export interface TaskEvidence {
  runs: number;
  successes: number;
  failures: number;
  lastRunAt: Date | null;
  lastStatus: RecordStatus | null;
  lastSuccessAt: Date | null;
  lastSuccessRecordId: number | null;
  /** Stored size of the last successful artifact: what is protected now. */
  protectedBytes: number;
  /** The newest finished deep verification (its outcome), and the newest that measured a restore time. */
  lastDeepVerify: { id: number; status: string; completedAt: Date | null } | null;
  lastRestoreMeasure: { id: number; restoreMs: number; completedAt: Date | null } | null;
}

const EMPTY: TaskEvidence = {
  runs: 0, successes: 0, failures: 0, lastRunAt: null, lastStatus: null, lastSuccessAt: null, lastSuccessRecordId: null, protectedBytes: 0,
  lastDeepVerify: null, lastRestoreMeasure: null,
};

/**
 * The evidence of every task in five grouped queries, whatever the length of the history: the
 * newest rows per task are found as `max(id)` per task (ids grow with time) over the
 * (task_id, status) index, then joined back for their columns.
 * `since` bounds the window that runs, successes and failures count; a `partial` run counts as
 * a run that is neither (some of its targets missed the artifact).
 */
export async function taskEvidence(em: EntityManager, since: Date): Promise<Map<number, TaskEvidence>> {
  const sql = new AggregateSql(em);
  const out = new Map<number, TaskEvidence>();
  const of = (taskId: unknown) => {
    const id = num(taskId);
    let e = out.get(id);
    if (!e) out.set(id, (e = { ...EMPTY }));
    return e;
  };
  const [window, last, success, deep, measured] = await Promise.all([
    sql.rows(`select task_id, count(*) as runs, sum(case when status = 'success' then 1 else 0 end) as successes,
      sum(case when status = 'failed' then 1 else 0 end) as failures
      from backup_records where started_at >= ? group by task_id`, [sql.time(since)]),
    sql.rows(`select r.task_id, r.status, r.started_at from backup_records r
      join (select task_id, max(id) as id from backup_records where started_at is not null group by task_id) m on r.id = m.id`),
    sql.rows(`select r.task_id, r.id, r.completed_at, r.file_size from backup_records r
      join (select task_id, max(id) as id from backup_records where status = 'success' group by task_id) m on r.id = m.id`),
    sql.rows(`select v.task_id, v.id, v.status, v.completed_at from verify_records v
      join (select task_id, max(id) as id from verify_records where mode = 'deep' and status in ('success', 'failed') group by task_id) m on v.id = m.id`),
    sql.rows(`select v.task_id, v.id, v.restore_ms, v.completed_at from verify_records v
      join (select task_id, max(id) as id from verify_records where mode = 'deep' and restore_ms is not null group by task_id) m on v.id = m.id`),
  ]);
  for (const r of window) Object.assign(of(r.task_id), { runs: num(r.runs), successes: num(r.successes), failures: num(r.failures) });
  for (const r of last) Object.assign(of(r.task_id), { lastRunAt: timeOf(r.started_at), lastStatus: r.status as RecordStatus });
  for (const r of success) Object.assign(of(r.task_id), { lastSuccessAt: timeOf(r.completed_at), lastSuccessRecordId: num(r.id), protectedBytes: num(r.file_size) });
  for (const r of deep) of(r.task_id).lastDeepVerify = { id: num(r.id), status: String(r.status), completedAt: timeOf(r.completed_at) };
  for (const r of measured) of(r.task_id).lastRestoreMeasure = { id: num(r.id), restoreMs: num(r.restore_ms), completedAt: timeOf(r.completed_at) };
  return out;
}

export function evidenceOf(map: Map<number, TaskEvidence>, taskId: number): TaskEvidence {
  return map.get(taskId) ?? EMPTY;
}

export type RtoStatus = 'ok' | 'exceeded' | 'unmeasured';

/**
 * A task's RTO as evidence: the restore time its newest deep verification measured, against
 * `rtoMinutes`. No measurement, or one older than `maxAgeMs`, is `unmeasured`: "recoverable
 * within N minutes" must be a recent measurement, not a promise.
 */
export function rtoStatus(rtoMinutes: number, e: TaskEvidence, maxAgeMs: number, now: Date): { status: RtoStatus; measuredMinutes: number | null; measuredAt: Date | null; verifyRecordId: number | null } {
  const m = e.lastRestoreMeasure;
  if (!m || !m.completedAt) return { status: 'unmeasured', measuredMinutes: null, measuredAt: null, verifyRecordId: null };
  const measuredMinutes = Math.round((m.restoreMs / 60_000) * 100) / 100;
  const stale = now.getTime() - m.completedAt.getTime() > maxAgeMs;
  const status: RtoStatus = stale ? 'unmeasured' : m.restoreMs > rtoMinutes * 60_000 ? 'exceeded' : 'ok';
  return { status, measuredMinutes, measuredAt: m.completedAt, verifyRecordId: m.id };
}

/** Hours since the last success (or since the task was created, when it never succeeded), 2 decimals. */
export function hoursSince(e: TaskEvidence, createdAt: Date, now: Date): number {
  const since = e.lastSuccessAt ?? createdAt;
  return Math.round(((now.getTime() - since.getTime()) / 3_600_000) * 100) / 100;
}

/** The start of a window of `days` days ending now. */
export function windowStart(days: number, now: Date): Date {
  return new Date(now.getTime() - days * 86_400_000);
}
