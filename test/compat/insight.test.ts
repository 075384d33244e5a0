import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { seedHistory } from '../helpers/insight-seed.ts';
import { expectEnvelope, Ref, Opt, Time } from './reference-shape.ts';

/**
 * BackupX compatibility of the dashboard, the compliance report and search: the console's calls
 * (web/src/services/dashboard.ts, reports.ts, search.ts) against its types (web/src/types/dashboard.ts,
 * reports.ts) and its Go services (dashboard_service.go, report_service.go, search_service.go).
 */
const Int = Type.Integer();
const Num = Type.Number();
const RecordSummary = Ref({ id: Int, taskId: Int, taskName: Type.String(), status: Type.String(), fileSize: Int });
const DashboardStats = Ref({
  totalTasks: Int,
  enabledTasks: Int,
  totalRecords: Int,
  successRate: Num,
  totalBackupBytes: Int,
  lastBackupAt: Opt(Time),
  recentRecords: Type.Array(RecordSummary),
  storageUsage: Type.Array(Ref({ storageTargetId: Int, targetName: Type.String(), totalSize: Int })),
});
const TimelinePoint = Ref({
  date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' }),
  total: Int,
  success: Int,
  failed: Int,
});
const SLAReport = Ref({
  totalTasksWithSla: Int,
  compliant: Int,
  violated: Int,
  coverageRate: Num,
  violations: Type.Array(
    Ref({
      taskId: Int,
      taskName: Type.String(),
      nodeId: Int,
      nodeName: Opt(Type.String()),
      slaHoursRpo: Int,
      lastSuccessAt: Opt(Time),
      hoursSinceLastSuccess: Num,
      neverSucceeded: Type.Boolean(),
    }),
  ),
});
const Cluster = Ref({
  masterVersion: Type.String(),
  totalNodes: Int,
  onlineNodes: Int,
  offlineNodes: Int,
  outdatedAgents: Int,
  nodes: Type.Array(
    Ref({
      id: Int,
      name: Type.String(),
      hostname: Type.String(),
      status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
      isLocal: Type.Boolean(),
      agentVersion: Type.String(),
      versionStatus: Type.Union([Type.Literal('current'), Type.Literal('outdated'), Type.Literal('unknown')]),
      lastSeen: Type.String(),
      taskCount: Int,
    }),
  ),
});
const Item = Ref({ key: Type.String(), label: Type.String(), count: Opt(Int), totalSize: Opt(Int) });
const Breakdown = Ref({
  byType: Type.Array(Item),
  byStatus: Type.Array(Item),
  byNode: Type.Array(Item),
  byStorage: Type.Array(Item),
});
const NodePerformance = Ref({
  nodeId: Int,
  nodeName: Type.String(),
  isLocal: Type.Boolean(),
  totalRuns: Int,
  successRuns: Int,
  failedRuns: Int,
  successRate: Num,
  totalBytes: Int,
  avgDurationSecs: Num,
});
const ComplianceRow = Ref({
  taskId: Int,
  taskName: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  nodeName: Type.String(),
  cronExpr: Type.String(),
  encrypted: Type.Boolean(),
  retentionDays: Int,
  slaHoursRpo: Int,
  totalRuns: Int,
  successes: Int,
  failures: Int,
  successRate: Num,
  lastStatus: Type.String(),
  lastRunAt: Opt(Time),
  lastSuccessAt: Opt(Time),
  protectedBytes: Int,
  compliant: Type.Boolean(),
  risk: Type.Union([Type.Literal('ok'), Type.Literal('at_risk'), Type.Literal('not_applicable')]),
});
const ComplianceReport = Ref({
  generatedAt: Time,
  rangeDays: Int,
  summary: Ref({
    totalTasks: Int,
    enabledTasks: Int,
    compliantTasks: Int,
    atRiskTasks: Int,
    encryptedTasks: Int,
    overallSuccessRate: Num,
    totalProtectedBytes: Int,
  }),
  tasks: Type.Array(ComplianceRow),
});
const SearchItem = Ref({
  kind: Type.String(),
  id: Int,
  title: Type.String(),
  subtitle: Opt(Type.String()),
  highlight: Opt(Type.String()),
  url: Type.String(),
});
const SearchResult = Ref({
  query: Type.String(),
  tasks: Type.Array(SearchItem),
  records: Type.Array(SearchItem),
  storage: Type.Array(SearchItem),
  nodes: Type.Array(SearchItem),
  totalCount: Int,
});

test('BackupX console: the dashboard, the compliance report and its CSV, search', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  await seedHistory(app.diContainer.cradle.orm.em.fork(), { tasks: 8, records: 120, nodes: 2, targets: 2, seed: 9 });
  const get = (url: string, query: Record<string, string> = {}) => call(app, 'GET', url, { token, query });
  const stats = expectEnvelope(await get('/api/dashboard/stats'), DashboardStats, 'stats');
  assert.equal(stats.recentRecords.length, 10);
  expectEnvelope(await get('/api/dashboard/timeline', { days: '30' }), Type.Array(TimelinePoint), 'timeline');
  expectEnvelope(await get('/api/dashboard/sla'), SLAReport, 'sla');
  expectEnvelope(await get('/api/dashboard/cluster'), Cluster, 'cluster');
  expectEnvelope(await get('/api/dashboard/breakdown', { days: '30' }), Breakdown, 'breakdown');
  expectEnvelope(
    await get('/api/dashboard/node-performance', { days: '30' }),
    Type.Array(NodePerformance),
    'node performance',
  );
  const report = expectEnvelope(await get('/api/reports/compliance', { days: '30' }), ComplianceReport, 'compliance');
  assert.equal(report.tasks.length, 8);
  const csv = await get('/api/reports/compliance/export', { days: '30' });
  assert.equal(csv.status, 200);
  assert.match(String(csv.headers['content-type']), /^text\/csv/);
  const found = expectEnvelope(await get('/api/search', { q: 'task' }), SearchResult, 'search');
  assert.ok(found.tasks.length > 0 && found.records.length > 0);
});
