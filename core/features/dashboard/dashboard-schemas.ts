import { Type } from 'typebox';
import { Timestamp, NullableTimestamp } from '../../http/schemas.ts';
import { RecordSummary } from '../backup-records/backup-record-schemas.ts';

const Int = Type.Integer();
const Num = Type.Number();

/** `days`: 1 to 365, default 30 (the reference's window). */
export const DaysQuery = Type.Object({ days: Type.Integer({ minimum: 1, maximum: 365, default: 30 }) });

export const DashboardStats = Type.Object({
  totalTasks: Int,
  enabledTasks: Int,
  totalRecords: Int,
  successRate: Num,
  totalBackupBytes: Int,
  lastBackupAt: Type.Optional(Timestamp),
  recentRecords: Type.Array(RecordSummary),
  /** Repository-mode runs started in the last 30 days: bytes read, bytes added after deduplication, and read/added. */
  deduplication: Type.Object({ records: Int, bytesRead: Int, bytesAdded: Int, ratio: Num }),
  storageUsage: Type.Array(Type.Object({ storageTargetId: Int, targetName: Type.String(), totalSize: Int })),
});

export const TimelinePoint = Type.Object({ date: Type.String(), total: Int, success: Int, failed: Int, partial: Int });

const BreakdownItem = Type.Object({
  key: Type.String(),
  label: Type.String(),
  count: Int,
  totalSize: Type.Optional(Int),
});
/** `key` is the node's id as `GET /api/nodes` and the other insight routes give it; `isLocal` marks the master. */
const NodeBreakdownItem = Type.Object({
  key: Type.String(),
  label: Type.String(),
  count: Int,
  isLocal: Type.Boolean(),
});
export const Breakdown = Type.Object({
  byType: Type.Array(BreakdownItem),
  byStatus: Type.Array(BreakdownItem),
  byNode: Type.Array(NodeBreakdownItem),
  byStorage: Type.Array(BreakdownItem),
});

export const NodePerformance = Type.Object({
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

export const Cluster = Type.Object({
  masterVersion: Type.String(),
  totalNodes: Int,
  onlineNodes: Int,
  offlineNodes: Int,
  outdatedAgents: Int,
  nodes: Type.Array(
    Type.Object({
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

export const RtoStatus = Type.Union([Type.Literal('ok'), Type.Literal('exceeded'), Type.Literal('unmeasured')]);

export const Sla = Type.Object({
  totalTasksWithSla: Int,
  compliant: Int,
  violated: Int,
  coverageRate: Num,
  violations: Type.Array(
    Type.Object({
      taskId: Int,
      taskName: Type.String(),
      nodeId: Int,
      nodeName: Type.String(),
      isLocal: Type.Boolean(),
      slaHoursRpo: Int,
      lastSuccessAt: Type.Optional(Timestamp),
      hoursSinceLastSuccess: Num,
      neverSucceeded: Type.Boolean(),
    }),
  ),
  totalTasksWithRto: Int,
  rtoOk: Int,
  rtoExceeded: Int,
  rtoUnmeasured: Int,
  rtoEvidenceMaxAgeDays: Int,
  rto: Type.Array(
    Type.Object({
      taskId: Int,
      taskName: Type.String(),
      rtoMinutes: Int,
      rtoStatus: RtoStatus,
      measuredMinutes: Type.Union([Num, Type.Null()]),
      measuredAt: NullableTimestamp,
      verifyRecordId: Type.Union([Int, Type.Null()]),
      lastDeepVerifyStatus: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
