import { type RunLog, errorText as message, stopOutcome, type RunStop } from '../engine/index.ts';
import type { EntityManager, EntityName } from '@mikro-orm/core';
import type { RecordStatus } from '../db/entities/backup-record.ts';
import type { RecordLogHub } from '../backup/record-log.ts';
import type { JobQueue } from './job-queue.ts';

export interface LifecycleRecord {
  id: number;
  status: RecordStatus;
  startedAt?: Date | null;
  completedAt?: Date | null;
  durationMs: number;
  errorMessage: string;
}

/**
 * The common life of a recovery record: `running`, the work, then `success` or `failed`
 * (`cancelled` on shutdown or a cancel, see RunStop) with the reason, the log closed with the terminal status.
 * Work that succeeded but found a problem on the way returns `{ partial: reason }`: the record ends `partial`.
 */
export async function runLifecycle<R extends LifecycleRecord>(
  em: EntityManager,
  record: R,
  hub: RecordLogHub,
  signal: AbortSignal,
  work: (log: RunLog) => Promise<void | { partial: string }>,
): Promise<RecordStatus> {
  record.status = 'running';
  record.startedAt = new Date();
  await em.flush();
  await hub.open(record.id, 'running');
  const log: RunLog = (level, text) => void hub.line(record.id, level, text);
  let status: RecordStatus;
  let reason = '';
  try {
    const outcome = await work(log);
    status = outcome ? 'partial' : 'success';
    reason = outcome ? outcome.partial : '';
  } catch (err) {
    const stopped = signal.aborted ? stopOutcome(signal.reason) : undefined;
    status = stopped?.status ?? 'failed';
    reason = stopped?.message ?? message(err);
  }
  await settleLifecycle(em, record, hub, status, reason);
  return status;
}

/**
 * The end of a recovery record, wherever its work ran (here, or on an agent): the reason logged,
 * the terminal status and times stored, the last line, and the log closed with the status.
 */
export async function settleLifecycle<R extends LifecycleRecord>(
  em: EntityManager,
  record: R,
  hub: RecordLogHub,
  status: RecordStatus,
  reason: string,
): Promise<void> {
  if (reason) {
    record.errorMessage = reason.slice(0, 2000);
    void hub.line(record.id, 'error', record.errorMessage);
  }
  const completed = new Date();
  record.status = status;
  record.completedAt = completed;
  record.durationMs = completed.getTime() - (record.startedAt?.getTime() ?? completed.getTime());
  await em.flush();
  void hub.line(
    record.id,
    status === 'success' ? 'info' : 'error',
    `${status} in ${(record.durationMs / 1000).toFixed(1)} s`,
  );
  hub.setStatus(record.id, status);
  await hub.close(record.id, status);
}

/** Ends a record that was stopped before or outside this process's run of it (queued, or on an agent). */
export async function settleStopped<R extends LifecycleRecord>(
  em: EntityManager,
  record: R,
  hub: RecordLogHub,
  stop: RunStop,
): Promise<void> {
  if (!hub.isLive(record.id)) await hub.open(record.id, record.status);
  await settleLifecycle(em, record, hub, stop.status, stop.message);
}

/** Start-up: records of `entity` a stopped master left queued or running become `failed` with `reason`. */
export async function failStale(
  em: EntityManager,
  entity: EntityName<LifecycleRecord>,
  reason: string,
  where: Record<string, unknown> = {},
): Promise<number> {
  const stale = await em.find(entity, { ...where, status: { $in: ['running', 'queued'] } } as never);
  const now = new Date();
  for (const r of stale) {
    r.status = 'failed';
    r.errorMessage = reason;
    r.completedAt = now;
  }
  await em.flush();
  return stale.length;
}

/**
 * Stops a recovery job this master's queue holds, for a cancel: a waiting job is dropped and its
 * record ended here (`publish` announces it); a running one is aborted, its own lifecycle ends
 * the record, and the reloaded record is returned. `ended` is the refusal when neither held it.
 */
export async function stopQueuedJob<R extends LifecycleRecord>(
  em: EntityManager,
  queue: JobQueue,
  key: string,
  record: R,
  o: { hub: RecordLogHub; stop: RunStop; publish: (r: R) => void; reload: () => Promise<R>; ended: (r: R) => Error },
): Promise<R> {
  const how = await queue.cancel(key, o.stop);
  if (how === 'waiting') {
    await settleStopped(em, record, o.hub, o.stop);
    o.publish(record);
    return record;
  }
  const after = await o.reload();
  if (how === 'none') throw o.ended(after);
  return after;
}
