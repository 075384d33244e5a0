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
  runs: 0,
  successes: 0,
  failures: 0,
  lastRunAt: null,
  lastStatus: null,
  lastSuccessAt: null,
  lastSuccessRecordId: null,
  protectedBytes: 0,
  lastDeepVerify: null,
  lastRestoreMeasure: null,
};

/**
 * The evidence of every task, whatever the length of the history: a task's newest record, newest
 * success and newest deep verifications are one index probe each (`max(id)` per task over the
 * (task_id, status, id) and (task_id, mode, id) indexes; ids grow with time), fetched back by id;
 * the window's counts are one GROUP BY over the (started_at, status, task_id) index.
 * `since` bounds the window that runs, successes and failures count (none without it); a `partial` run counts as
 * a run that is neither (some of its targets missed the artifact).
 */
export async function taskEvidence(em: EntityManager, since?: Date): Promise<Map<number, TaskEvidence>> {
  const sql = new AggregateSql(em);
  const out = new Map<number, TaskEvidence>();
  const of = (taskId: unknown) => {
    const id = num(taskId);
    let e = out.get(id);
    if (!e) out.set(id, (e = { ...EMPTY }));
    return e;
  };
  const [window, latest] = await Promise.all([
    // Without a window (the SLA scan, the metrics), only the newest rows are wanted.
    since === undefined
      ? []
      : sql.rows(
          `select ${sql.groupKey('task_id')} as task_id, count(*) as runs, sum(case when status = 'success' then 1 else 0 end) as successes,
      sum(case when status = 'failed' then 1 else 0 end) as failures
      from backup_records where started_at >= ? group by 1`,
          [sql.time(since)],
        ),
    sql.rows(`select t.id as task_id,
      (select max(r.id) from backup_records r where r.task_id = t.id) as last_id,
      (select max(r.id) from backup_records r where r.task_id = t.id and r.status = 'success') as success_id,
      (select max(v.id) from verify_records v where v.task_id = t.id and v.mode = 'deep' and v.status in ('success', 'failed')) as deep_id,
      (select max(v.id) from verify_records v where v.task_id = t.id and v.mode = 'deep' and v.restore_ms is not null) as measured_id
      from backup_tasks t`),
  ]);
  const recordIds = latest
    .flatMap((r) => [r.last_id, r.success_id])
    .filter((id) => id !== null && id !== undefined)
    .map(num);
  const verifyIds = latest
    .flatMap((r) => [r.deep_id, r.measured_id])
    .filter((id) => id !== null && id !== undefined)
    .map(num);
  const [records, verifies] = await Promise.all([
    byIds(sql, 'select id, status, started_at, queued_at, completed_at, file_size from backup_records', recordIds),
    byIds(sql, 'select id, status, restore_ms, completed_at from verify_records', verifyIds),
  ]);
  for (const r of window)
    Object.assign(of(r.task_id), { runs: num(r.runs), successes: num(r.successes), failures: num(r.failures) });
  for (const t of latest) {
    const e = of(t.task_id);
    const last = records.get(num(t.last_id));
    // The newest run; one still queued has no start yet and shows when it was queued.
    if (last)
      Object.assign(e, {
        lastRunAt: timeOf(last.started_at) ?? timeOf(last.queued_at),
        lastStatus: last.status as RecordStatus,
      });
    const success = records.get(num(t.success_id));
    if (success)
      Object.assign(e, {
        lastSuccessAt: timeOf(success.completed_at),
        lastSuccessRecordId: num(success.id),
        protectedBytes: num(success.file_size),
      });
    const deep = verifies.get(num(t.deep_id));
    if (deep)
      e.lastDeepVerify = { id: num(deep.id), status: String(deep.status), completedAt: timeOf(deep.completed_at) };
    const measured = verifies.get(num(t.measured_id));
    if (measured)
      e.lastRestoreMeasure = {
        id: num(measured.id),
        restoreMs: num(measured.restore_ms),
        completedAt: timeOf(measured.completed_at),
      };
  }
  return out;
}

/** Rows by id, in chunks that stay under every driver's parameter limit. */
async function byIds(sql: AggregateSql, select: string, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const row of await sql.rows(`${select} where id in (${chunk.map(() => '?').join(', ')})`, chunk))
      out.set(num(row.id), row);
  }
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
export function rtoStatus(
  rtoMinutes: number,
  e: TaskEvidence,
  maxAgeMs: number,
  now: Date,
): { status: RtoStatus; measuredMinutes: number | null; measuredAt: Date | null; verifyRecordId: number | null } {
  const m = e.lastRestoreMeasure;
  if (!m || !m.completedAt)
    return { status: 'unmeasured', measuredMinutes: null, measuredAt: null, verifyRecordId: null };
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
