import type { EntityManager } from '@mikro-orm/core';
import type { RecordStatus } from '../db/entities/backup-record.ts';
import type { RecordLogHub } from '../backup/record-log.ts';

export interface LifecycleRecord {
  id: number;
  status: RecordStatus;
  startedAt?: Date | null;
  completedAt?: Date | null;
  durationMs: number;
  errorMessage: string;
}

export type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The common life of a recovery record: `running`, the work, then `success` or `failed`
 * (`cancelled` on shutdown) with the reason, the log closed with the terminal status.
 */
export async function runLifecycle<R extends LifecycleRecord>(em: EntityManager, record: R, hub: RecordLogHub, signal: AbortSignal, work: (log: Log) => Promise<void>): Promise<RecordStatus> {
  record.status = 'running';
  record.startedAt = new Date();
  await em.flush();
  await hub.open(record.id, 'running');
  const log: Log = (level, text) => void hub.line(record.id, level, text);
  let status: RecordStatus;
  try {
    await work(log);
    status = 'success';
  } catch (err) {
    status = signal.aborted ? 'cancelled' : 'failed';
    record.errorMessage = (signal.aborted ? `cancelled: ${message(signal.reason)}` : message(err)).slice(0, 2000);
    log('error', record.errorMessage);
  }
  const completed = new Date();
  record.status = status;
  record.completedAt = completed;
  record.durationMs = completed.getTime() - (record.startedAt?.getTime() ?? completed.getTime());
  await em.flush();
  log(status === 'success' ? 'info' : 'error', `${status} in ${(record.durationMs / 1000).toFixed(1)} s`);
  hub.setStatus(record.id, status);
  await hub.close(record.id, status);
  return status;
}
