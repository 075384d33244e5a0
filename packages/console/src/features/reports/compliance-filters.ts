/**
 * The compliance page's filters, kept in its querystring so a link opens the same report:
 * `days` (the API's period, 1–365, default 30) and two filters applied to the rows in the page,
 * `risk` and `q` (task name). Pure: unit-tested.
 */
export type RiskFilter = 'all' | 'ok' | 'at_risk' | 'not_applicable';

export interface ComplianceFilters {
  days: number;
  risk: RiskFilter;
  q: string;
}

export const DEFAULT_DAYS = 30;
const RISKS: readonly RiskFilter[] = ['all', 'ok', 'at_risk', 'not_applicable'];

export function parseComplianceSearch(search: string): ComplianceFilters {
  const p = new URLSearchParams(search);
  const n = Number(p.get('days'));
  const days = Number.isInteger(n) && n >= 1 && n <= 365 ? n : DEFAULT_DAYS;
  const r = p.get('risk') as RiskFilter | null;
  return { days, risk: r && RISKS.includes(r) ? r : 'all', q: (p.get('q') ?? '').trim() };
}

/** The querystring for the page (defaults left out), without the leading `?`. */
export function complianceSearch(f: ComplianceFilters): string {
  const p = new URLSearchParams();
  if (f.days !== DEFAULT_DAYS) p.set('days', String(f.days));
  if (f.risk !== 'all') p.set('risk', f.risk);
  if (f.q) p.set('q', f.q);
  return p.toString();
}

/** The CSV export of the same period (the API's export takes `days` only). */
export function complianceExportPath(f: Pick<ComplianceFilters, 'days'>): string {
  return `/api/reports/compliance/export?days=${f.days}`;
}

/** The printable HTML report of the same period. */
export function complianceHtmlPath(f: Pick<ComplianceFilters, 'days'>): string {
  return `/api/reports/compliance?days=${f.days}&format=html`;
}

export interface RiskRow {
  taskName: string;
  enabled: boolean;
  risk: 'ok' | 'at_risk' | 'not_applicable';
  slaHoursRpo: number;
  lastSuccessAt?: string;
  rtoMinutes: number;
  rtoStatus: string;
  measuredRestoreMinutes: number | null;
}

export function filterRows<R extends RiskRow>(rows: readonly R[], f: Pick<ComplianceFilters, 'risk' | 'q'>): R[] {
  const q = f.q.toLowerCase();
  return rows.filter((r) => (f.risk === 'all' || r.risk === f.risk) && (!q || r.taskName.toLowerCase().includes(q)));
}

export type ReasonKey = 'disabled' | 'neverSucceeded' | 'rpoMissed' | 'rtoExceeded' | 'rtoUnmeasured' | 'ok';
export interface Reason {
  key: ReasonKey;
  params: { hours?: number; rpo?: number; measured?: number; rto?: number };
}

/**
 * Why a row is what it is, by the server's rules (core/features/reports/compliance-report.ts):
 * disabled → not applicable; never succeeded, RPO missed or RTO exceeded → at risk. An unmeasured
 * RTO is listed as a note: it is not counted as a risk, only shown as not proven.
 */
export function complianceReasons(row: RiskRow, now: number): Reason[] {
  if (!row.enabled) return [{ key: 'disabled', params: {} }];
  const out: Reason[] = [];
  if (!row.lastSuccessAt) out.push({ key: 'neverSucceeded', params: {} });
  else if (row.slaHoursRpo > 0) {
    const hours = (now - Date.parse(row.lastSuccessAt)) / 3_600_000;
    if (hours > row.slaHoursRpo)
      out.push({ key: 'rpoMissed', params: { hours: Math.round(hours), rpo: row.slaHoursRpo } });
  }
  if (row.rtoStatus === 'exceeded')
    out.push({ key: 'rtoExceeded', params: { measured: row.measuredRestoreMinutes ?? 0, rto: row.rtoMinutes } });
  if (row.risk === 'at_risk' && out.length === 0)
    out.push({ key: 'rpoMissed', params: { hours: 0, rpo: row.slaHoursRpo } });
  if (row.rtoStatus === 'unmeasured') out.push({ key: 'rtoUnmeasured', params: { rto: row.rtoMinutes } });
  return out.length ? out : [{ key: 'ok', params: {} }];
}
