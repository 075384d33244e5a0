/**
 * The audit log's filters, exactly the list route's querystring (GET /api/audit-logs: category,
 * action, username, targetType, targetId, keyword, dateFrom, dateTo), kept in the page's URL so a
 * filtered view can be shared, and turned into the query of the list and of the CSV export.
 * Pure: test/console/audit-filters.test.ts.
 */

export const TEXT_FILTERS = ['category', 'action', 'username', 'targetType', 'targetId', 'keyword'] as const;
export type TextFilter = (typeof TEXT_FILTERS)[number];

export interface AuditFilters extends Record<TextFilter, string> {
  /** Local calendar days, YYYY-MM-DD ('' when open): the range covers both days whole. */
  from: string;
  to: string;
}

export const NO_FILTERS: AuditFilters = {
  category: '',
  action: '',
  username: '',
  targetType: '',
  targetId: '',
  keyword: '',
  from: '',
  to: '',
};

/** Categories the server writes today (core/**: audit records), offered as suggestions; any text is accepted. */
export const KNOWN_CATEGORIES = [
  'api_key',
  'auth',
  'backup_record',
  'backup_task',
  'node',
  'notification',
  'settings',
  'storage_target',
  'task_template',
  'user',
  'verify_record',
];

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The instant a local day starts (or, with `end`, its last millisecond), as ISO 8601; undefined for no or a bad day. */
export function dayBoundary(day: string, end = false): string | undefined {
  const m = DAY.exec(day);
  if (!m) return undefined;
  const date = new Date(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    end ? 23 : 0,
    end ? 59 : 0,
    end ? 59 : 0,
    end ? 999 : 0,
  );
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The route's query for these filters: trimmed, empties left out, days as instants. */
export function auditQuery(filters: AuditFilters): Partial<Record<TextFilter | 'dateFrom' | 'dateTo', string>> {
  const query: Partial<Record<TextFilter | 'dateFrom' | 'dateTo', string>> = {};
  for (const key of TEXT_FILTERS) {
    const v = filters[key].trim();
    if (v) query[key] = v;
  }
  const dateFrom = dayBoundary(filters.from);
  const dateTo = dayBoundary(filters.to, true);
  if (dateFrom) query.dateFrom = dateFrom;
  if (dateTo) query.dateTo = dateTo;
  return query;
}

/** The same query as a query string (for the CSV export's URL), '' when nothing is filtered. */
export function auditQueryString(filters: AuditFilters): string {
  const s = new URLSearchParams(auditQuery(filters)).toString();
  return s ? `?${s}` : '';
}

/** A from-day after the to-day: the server refuses it (AUDIT_FILTER_INVALID), the form says so first. */
export function rangeInverted(filters: Pick<AuditFilters, 'from' | 'to'>): boolean {
  return DAY.test(filters.from) && DAY.test(filters.to) && filters.from > filters.to;
}

/** Filters and page from the page's URL (unknown parameters ignored, a bad page is 1). */
export function filtersFromSearch(params: URLSearchParams): { filters: AuditFilters; page: number } {
  const filters = { ...NO_FILTERS };
  for (const key of [...TEXT_FILTERS, 'from', 'to'] as const) filters[key] = params.get(key) ?? '';
  const page = Number(params.get('page'));
  return { filters, page: Number.isInteger(page) && page > 0 ? page : 1 };
}

/** The page's URL parameters for filters and page: only what is set, page 1 left out. */
export function searchFromFilters(filters: AuditFilters, page = 1): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of [...TEXT_FILTERS, 'from', 'to'] as const)
    if (filters[key].trim()) params.set(key, filters[key].trim());
  if (page > 1) params.set('page', String(page));
  return params;
}
