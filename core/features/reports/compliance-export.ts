import { escapeHtml } from '@backplane/plugin-api';
import { csvSafe } from '../../http/csv.ts';
import type { ComplianceReport, ComplianceRow } from './compliance-report.ts';

/** `YYYY-MM-DD HH:MM:SS` UTC, as the reference writes times in its CSV; '' when absent. */
const utc = (iso: string | undefined) => (iso ? iso.replace('T', ' ').slice(0, 19) : '');
const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;

/** The CSV columns (docs/insight.md): seventeen in English, then the RTO and deep-verification evidence. */
export const CSV_COLUMNS: [string, (r: ComplianceRow) => string | number | boolean][] = [
  ['Task ID', (r) => r.taskId],
  ['Task name', (r) => r.taskName],
  ['Type', (r) => r.type],
  ['Enabled', (r) => yesNo(r.enabled)],
  ['Node', (r) => r.nodeName],
  ['Encrypted', (r) => yesNo(r.encrypted)],
  ['Retention days', (r) => r.retentionDays],
  ['RPO (hours)', (r) => r.slaHoursRpo],
  ['Runs in period', (r) => r.totalRuns],
  ['Successes', (r) => r.successes],
  ['Failures', (r) => r.failures],
  ['Success rate', (r) => percent(r.successRate)],
  ['Last status', (r) => r.lastStatus],
  ['Last run (UTC)', (r) => utc(r.lastRunAt)],
  ['Last success (UTC)', (r) => utc(r.lastSuccessAt)],
  ['Protected bytes', (r) => r.protectedBytes],
  ['Compliance', (r) => r.risk],
  ['RTO (minutes)', (r) => r.rtoMinutes],
  ['RTO status', (r) => r.rtoStatus],
  ['Measured restore (minutes)', (r) => r.measuredRestoreMinutes ?? ''],
  ['Last deep verification', (r) => r.lastDeepVerifyStatus],
  ['Last deep verification (UTC)', (r) => utc(r.lastDeepVerifyAt)],
];

/** Rows for csv-stringify, every cell made safe for spreadsheets (no leading = + - @). */
export function* csvRows(report: ComplianceReport): Generator<string[]> {
  for (const row of report.tasks) yield CSV_COLUMNS.map(([, cell]) => csvSafe(cell(row)));
}

/** A self-contained printable page for auditors: the summary, then one row per task. */
export function complianceHtml(report: ComplianceReport, siteName: string): string {
  const s = report.summary;
  const head = CSV_COLUMNS.map(([name]) => `<th>${escapeHtml(name)}</th>`).join('');
  const body = report.tasks
    .map(
      (r) =>
        `<tr class="${r.risk}">${CSV_COLUMNS.map(([, cell]) => `<td>${escapeHtml(String(cell(r)))}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const facts: [string, string | number][] = [
    ['Tasks', s.totalTasks],
    ['Enabled', s.enabledTasks],
    ['Compliant', s.compliantTasks],
    ['At risk', s.atRiskTasks],
    ['Encrypted', s.encryptedTasks],
    ['Success rate', percent(s.overallSuccessRate)],
    ['Protected bytes', s.totalProtectedBytes],
    ['RTO exceeded', s.rtoExceededTasks],
    ['RTO not measured', s.rtoUnmeasuredTasks],
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(siteName)} compliance report</title>
<style>
body{font:13px/1.4 system-ui,sans-serif;margin:2em;color:#111}
table{border-collapse:collapse;width:100%;margin-top:1em}
th,td{border:1px solid #bbb;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#eee}
tr.at_risk td{background:#fde8e8}
tr.not_applicable td{color:#777}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 1em}
dt{font-weight:600}
@media print{body{margin:0;font-size:10px}@page{size:landscape;margin:1cm}}
</style></head>
<body>
<h1>${escapeHtml(siteName)} compliance report</h1>
<p>Generated ${escapeHtml(utc(report.generatedAt))} UTC, covering the last ${report.rangeDays} days.</p>
<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(String(v))}</dd>`).join('')}</dl>
<p>A task is <em>at risk</em> when it never succeeded, its last success is older than its RPO, or its last measured restore took longer than its RTO.
An RTO is <em>unmeasured</em> without a deep verification that restored the backup recently.</p>
<table><thead><tr>${head}</tr></thead><tbody>
${body}
</tbody></table>
</body></html>
`;
}
