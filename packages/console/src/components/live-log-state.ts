/**
 * The state of a run's live log, fed by the record log stream's `log` events
 * (core/features/backup-records/record-log-stream.ts; payload = core/backup/record-log.ts LogEvent
 * with `status` as a record reports it). Pure, so it is unit-tested (test/console/live-log-state.test.ts).
 */
export interface LogProgress {
  bytesRead: number;
  bytesStored: number;
  speedBps: number;
  elapsedSeconds: number;
}

export interface LogLine {
  sequence: number;
  level: string;
  message: string;
  timestamp: string;
}

export interface LiveLogState {
  lines: LogLine[];
  progress: LogProgress | null;
  /** The record's status as the last event told it. */
  status: string | null;
  /** True once the final `{completed: true}` event arrived. */
  done: boolean;
}

export const initialLiveLog: LiveLogState = { lines: [], progress: null, status: null, done: false };

/** Keeps the browser responsive with a chatty run (the server stores at most 2000 lines anyway). */
const MAX_LINES = 2000;

interface RawEvent {
  sequence?: unknown;
  level?: unknown;
  message?: unknown;
  timestamp?: unknown;
  completed?: unknown;
  status?: unknown;
  progress?: unknown;
}

/** Parses one SSE `data` field; returns null for anything that is not a log event. */
export function parseLogEvent(data: string): RawEvent | null {
  try {
    const v: unknown = JSON.parse(data);
    return v !== null && typeof v === 'object' ? (v as RawEvent) : null;
  } catch {
    return null;
  }
}

function asProgress(p: unknown): LogProgress | null {
  if (!p || typeof p !== 'object') return null;
  const o = p as Record<string, unknown>;
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : 0);
  return {
    bytesRead: n('bytesRead'),
    bytesStored: n('bytesStored'),
    speedBps: n('speedBps'),
    elapsedSeconds: n('elapsedSeconds'),
  };
}

/** The state after one event: progress replaces progress, a line is appended once (by sequence), the final event ends it. */
export function applyLogEvent(state: LiveLogState, e: RawEvent): LiveLogState {
  const status = typeof e.status === 'string' ? e.status : state.status;
  if (e.completed === true) return { ...state, status, done: true };
  if (e.level === 'progress') return { ...state, status, progress: asProgress(e.progress) ?? state.progress };
  const sequence = typeof e.sequence === 'number' ? e.sequence : 0;
  // A reconnect replays from Last-Event-ID; never show a line twice.
  const last = state.lines[state.lines.length - 1];
  if (last && sequence > 0 && sequence <= last.sequence) return { ...state, status };
  const line: LogLine = {
    sequence,
    level: typeof e.level === 'string' ? e.level : 'info',
    message: typeof e.message === 'string' ? e.message : '',
    timestamp: typeof e.timestamp === 'string' ? e.timestamp : '',
  };
  const lines = state.lines.length >= MAX_LINES ? [...state.lines.slice(1), line] : [...state.lines, line];
  return { ...state, status, lines };
}

/** A 0–100 value when the expected size is known (e.g. the last successful run's raw size), else null (indeterminate). */
export function progressPercent(progress: LogProgress | null, expectedBytes: number | null | undefined): number | null {
  if (!progress || !expectedBytes || expectedBytes <= 0) return null;
  return Math.min(99, Math.max(0, Math.round((progress.bytesRead / expectedBytes) * 100)));
}
