import { EventEmitter } from 'node:events';
import type { MikroORM } from '@mikro-orm/core';
import type { Cluster } from '../db/cluster.ts';
import { BackupRecordLogEntity } from '../db/entities/backup-record.ts';
import type { RecordStatus } from '../db/entities/backup-record.ts';

export type LogLevel = 'info' | 'warn' | 'error';
export type RecordKind = 'backup' | 'restore' | 'verify';

export interface ProgressInfo {
  bytesRead: number;
  bytesStored: number;
  speedBps: number;
  elapsedSeconds: number;
}

/** What a record's log stream carries (the reference's LogEvent, with `sequence` as the SSE id). */
export interface LogEvent {
  recordId: number;
  sequence: number;
  level: LogLevel | 'progress';
  message: string;
  timestamp: string;
  completed: boolean;
  status: RecordStatus;
  progress?: ProgressInfo;
}

/** A notice carrying a log event stays under NOTIFY's 8,000 bytes; a longer line goes by reference (kind, record, sequence). */
const MAX_NOTICE_BYTES = 7_000;

/** A record keeps at most this many lines; a run spraying warnings must not fill the database. */
export const MAX_LINES = 2000;

/** Latest progress is kept for this many records at most (a run whose end this master never heard of must not pile up). */
const MAX_PROGRESS_ENTRIES = 10_000;

interface Live {
  seq: number;
  lines: number;
  status: RecordStatus;
  /** Persisting is serialised per record so `seq` order is the table's order. */
  chain: Promise<void>;
}

/**
 * Per-record logs: lines are persisted (`backup_record_logs`) so a stream replays them after a
 * restart, and published to live subscribers; progress is published only. Each record's lines
 * are numbered from 1; progress and the final event carry the last line's number, so resuming
 * from any id never skips a line.
 *
 * With several masters (`relay`), what is published goes out as a notice (NOTIFY) once stored,
 * and every master — the writing one included — hands it to its subscribers, so a record's live
 * log streams from whichever master a client reaches.
 */
export class RecordLogHub {
  readonly #orm: MikroORM;
  readonly #emitter = new EventEmitter();
  readonly #live = new Map<number, Live>();
  /** The last progress frame of each running record this master heard of (its own runs, and every master's when relayed). */
  readonly #progress = new Map<number, ProgressInfo>();

  readonly #kind: RecordKind;
  #relay: { cluster: Cluster; onError: (err: unknown) => void } | undefined;
  #incoming: Promise<void> = Promise.resolve();

  constructor(orm: MikroORM, kind: RecordKind) {
    this.#orm = orm;
    this.#kind = kind;
    this.#emitter.setMaxListeners(0);
  }

  /** Starts (or resumes, after a restart) a record's log. */
  async open(recordId: number, status: RecordStatus): Promise<void> {
    const em = this.#orm.em.fork();
    const last = await em.findOne(
      BackupRecordLogEntity,
      { recordKind: this.#kind, recordId },
      { orderBy: { seq: 'desc' }, fields: ['seq'] },
    );
    const count = await em.count(BackupRecordLogEntity, { recordKind: this.#kind, recordId });
    this.#live.set(recordId, { seq: last?.seq ?? 0, lines: count, status, chain: Promise.resolve() });
  }

  setStatus(recordId: number, status: RecordStatus): void {
    const live = this.#live.get(recordId);
    if (live) live.status = status;
  }

  /** Appends a line; resolves once it is stored (callers may ignore the promise). */
  line(recordId: number, level: LogLevel, message: string): Promise<void> {
    const live = this.#live.get(recordId);
    if (!live) return Promise.resolve();
    if (live.lines >= MAX_LINES) return live.chain;
    live.lines++;
    const text =
      live.lines === MAX_LINES
        ? `${message} (log limit of ${MAX_LINES} lines reached; later lines are dropped)`
        : message;
    const event: LogEvent = {
      recordId,
      sequence: ++live.seq,
      level,
      message: text.slice(0, 4000),
      timestamp: new Date().toISOString(),
      completed: false,
      status: live.status,
    };
    live.chain = live.chain.then(async () => {
      try {
        await this.#orm.em.fork().insert(BackupRecordLogEntity, {
          recordKind: this.#kind,
          recordId,
          seq: event.sequence,
          level,
          message: event.message,
          createdAt: new Date(event.timestamp),
        });
      } catch {
        // a log line must never fail the backup; it still reaches live subscribers
      }
      // Through a relay, after the insert: a line sent by reference is read back by the others.
      if (this.#relay) this.#publish(event);
    });
    if (!this.#relay) this.#publish(event);
    return live.chain;
  }

  progress(recordId: number, progress: ProgressInfo, message: string): void {
    const live = this.#live.get(recordId);
    if (!live) return;
    this.#publish({
      recordId,
      sequence: live.seq,
      level: 'progress',
      message,
      timestamp: new Date().toISOString(),
      completed: false,
      status: live.status,
      progress,
    });
  }

  /** Ends the log: waits for the stored lines, then tells subscribers the terminal status. */
  async close(recordId: number, status: RecordStatus): Promise<void> {
    const live = this.#live.get(recordId);
    if (!live) return;
    await live.chain;
    this.#live.delete(recordId);
    this.#publish(finalEvent(recordId, live.seq, status));
  }

  /**
   * From now on this hub's events go out through the cluster and come in from it: subscribers
   * here see the lines of records written on every master.
   */
  relay(cluster: Cluster, onError: (err: unknown) => void): void {
    this.#relay = { cluster, onError };
    // In arrival order: a line read back by reference must not be overtaken by the next one.
    cluster.listen('backplane_logs', (payload) => {
      this.#incoming = this.#incoming.then(() => this.#received(payload)).catch(onError);
    });
  }

  #publish(event: LogEvent): void {
    if (!this.#relay) {
      this.#dispatch(event);
      return;
    }
    let notice = JSON.stringify({ kind: this.#kind, event });
    if (Buffer.byteLength(notice) > MAX_NOTICE_BYTES)
      notice = JSON.stringify({ kind: this.#kind, event: { ...event, message: '' }, byReference: true });
    void this.#relay.cluster.notify('backplane_logs', notice).catch(this.#relay.onError);
  }

  async #received(payload: string): Promise<void> {
    const notice = JSON.parse(payload) as { kind: RecordKind; event: LogEvent; byReference?: boolean };
    if (notice.kind !== this.#kind) return;
    let event = notice.event;
    if (notice.byReference) {
      const row = await this.#orm.em
        .fork()
        .findOne(BackupRecordLogEntity, { recordKind: this.#kind, recordId: event.recordId, seq: event.sequence });
      if (!row) return;
      event = { ...event, message: row.message };
    }
    this.#dispatch(event);
  }

  /** Hands an event to the record's subscribers, keeping its progress for lists (`lastProgress`). */
  #dispatch(event: LogEvent): void {
    if (event.completed) this.#progress.delete(event.recordId);
    else if (event.progress) {
      this.#progress.delete(event.recordId);
      this.#progress.set(event.recordId, event.progress);
      if (this.#progress.size > MAX_PROGRESS_ENTRIES) this.#progress.delete(this.#progress.keys().next().value!);
    }
    this.#emitter.emit(String(event.recordId), event);
  }

  /** The last progress a running record reported (bytes read and stored, speed, elapsed), if any reached this master. */
  lastProgress(recordId: number): ProgressInfo | undefined {
    return this.#progress.get(recordId);
  }

  isLive(recordId: number): boolean {
    return this.#live.has(recordId);
  }

  subscribe(recordId: number, listener: (event: LogEvent) => void): () => void {
    const name = String(recordId);
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }

  /** Stored lines after `afterSeq`, oldest first. */
  async stored(recordId: number, afterSeq: number, status: RecordStatus): Promise<LogEvent[]> {
    const rows = await this.#orm.em
      .fork()
      .find(
        BackupRecordLogEntity,
        { recordKind: this.#kind, recordId, seq: { $gt: afterSeq } },
        { orderBy: { seq: 'asc' } },
      );
    return rows.map((r) => ({
      recordId,
      sequence: r.seq,
      level: r.level as LogLevel,
      message: r.message,
      timestamp: r.createdAt.toISOString(),
      completed: false,
      status,
    }));
  }

  /** Every stored line as text (`<time> <LEVEL> <message>`), for a record's detail. */
  async content(recordId: number): Promise<string> {
    const lines = await this.#orm.em
      .fork()
      .find(BackupRecordLogEntity, { recordKind: this.#kind, recordId }, { orderBy: { seq: 'asc' } });
    return lines.map((l) => `${l.createdAt.toISOString()} ${l.level.toUpperCase()} ${l.message}`).join('\n');
  }

  async remove(recordId: number): Promise<void> {
    await this.#orm.em.fork().nativeDelete(BackupRecordLogEntity, { recordKind: this.#kind, recordId });
  }
}

export function finalEvent(recordId: number, seq: number, status: RecordStatus): LogEvent {
  return {
    recordId,
    sequence: seq,
    level: 'info',
    message: 'stream completed',
    timestamp: new Date().toISOString(),
    completed: true,
    status,
  };
}
