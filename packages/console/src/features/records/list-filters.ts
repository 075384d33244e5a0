/**
 * The filters of the record lists (backup, restore, verification, replication), kept in the
 * page's address so a filtered list can be linked to (`/records?taskId=3`,
 * `/restores?backupRecordId=12`), and turned into the list routes' query. Pure: tested in
 * test/console/records-list-filters.test.ts.
 */
export const RUN_STATES = ['queued', 'running', 'success', 'partial', 'failed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];

export interface ListFilters {
  taskId: number | null;
  nodeId: number | null;
  backupRecordId: number | null;
  destTargetId: number | null;
  status: RunState | null;
  /** Local calendar days, YYYY-MM-DD, both included. */
  dateFrom: string | null;
  dateTo: string | null;
  /** 1-based. */
  page: number;
}

export const NO_FILTERS: ListFilters = {
  taskId: null,
  nodeId: null,
  backupRecordId: null,
  destTargetId: null,
  status: null,
  dateFrom: null,
  dateTo: null,
  page: 1,
};

const ID_KEYS = ['taskId', 'nodeId', 'backupRecordId', 'destTargetId'] as const;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

function id(v: string | null, min: number): number | null {
  if (v === null || !/^\d+$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) && n >= min ? n : null;
}

/** Reads filters from the address (anything malformed is ignored). nodeId 0 is the master. */
export function filtersFromSearch(params: { get(name: string): string | null }): ListFilters {
  const status = params.get('status');
  const day = (k: string) => {
    const v = params.get(k);
    return v !== null && DAY.test(v) ? v : null;
  };
  return {
    taskId: id(params.get('taskId'), 1),
    nodeId: id(params.get('nodeId'), 0),
    backupRecordId: id(params.get('backupRecordId'), 1),
    destTargetId: id(params.get('destTargetId'), 1),
    status: (RUN_STATES as readonly string[]).includes(status ?? '') ? (status as RunState) : null,
    dateFrom: day('dateFrom'),
    dateTo: day('dateTo'),
    page: id(params.get('page'), 1) ?? 1,
  };
}

/** The address's query for filters (unset ones and page 1 left out). */
export function filtersToSearch(f: ListFilters): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ID_KEYS) if (f[k] !== null) out[k] = String(f[k]);
  if (f.status) out.status = f.status;
  if (f.dateFrom) out.dateFrom = f.dateFrom;
  if (f.dateTo) out.dateTo = f.dateTo;
  if (f.page > 1) out.page = String(f.page);
  return out;
}

/** The start of a local calendar day as an RFC 3339 instant; `plusDays` moves it. */
export function dayStart(day: string, plusDays = 0): string | undefined {
  const m = DAY.exec(day);
  if (!m) return undefined;
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays).toISOString();
}

export interface ListQuery {
  taskId?: number;
  nodeId?: number;
  backupRecordId?: number;
  destTargetId?: number;
  status?: RunState;
  dateFrom?: string;
  dateTo?: string;
  limit: number;
  offset: number;
}

/**
 * The list route's query. The routes take `dateTo` as exclusive, so the last chosen day is
 * included by asking up to the start of the next one. A range given backwards is swapped
 * rather than refused.
 */
export function listQuery(f: ListFilters, pageSize: number): ListQuery {
  const q: ListQuery = { limit: pageSize, offset: (Math.max(1, f.page) - 1) * pageSize };
  for (const k of ID_KEYS) if (f[k] !== null) q[k] = f[k];
  if (f.status) q.status = f.status;
  let [from, to] = [f.dateFrom, f.dateTo];
  if (from && to && from > to) [from, to] = [to, from];
  const start = from ? dayStart(from) : undefined;
  const end = to ? dayStart(to, 1) : undefined;
  if (start) q.dateFrom = start;
  if (end) q.dateTo = end;
  return q;
}

/** Pages needed for `total` items. */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
