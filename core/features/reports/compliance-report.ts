import type { EntityManager } from '@mikro-orm/core';
import type { Config } from '../../config/config.ts';
import { BackupTaskEntity } from '../../db/entities/backup-task.ts';
import { NodeEntity } from '../../db/entities/node.ts';
import {
  taskEvidence,
  evidenceOf,
  rtoStatus,
  hoursSince,
  windowStart,
  type RtoStatus,
} from '../../insight/task-evidence.ts';

export type Risk = 'ok' | 'at_risk' | 'not_applicable';

export interface ComplianceRow {
  taskId: number;
  taskName: string;
  type: string;
  enabled: boolean;
  nodeName: string;
  cronExpr: string;
  encrypted: boolean;
  retentionDays: number;
  slaHoursRpo: number;
  totalRuns: number;
  successes: number;
  failures: number;
  successRate: number;
  lastStatus: string;
  lastRunAt?: string;
  lastSuccessAt?: string;
  protectedBytes: number;
  compliant: boolean;
  risk: Risk;
  rtoMinutes: number;
  rtoStatus: RtoStatus | 'not_set';
  measuredRestoreMinutes: number | null;
  lastDeepVerifyStatus: string;
  lastDeepVerifyAt?: string;
}

export interface ComplianceReport {
  generatedAt: string;
  rangeDays: number;
  summary: {
    totalTasks: number;
    enabledTasks: number;
    compliantTasks: number;
    atRiskTasks: number;
    encryptedTasks: number;
    overallSuccessRate: number;
    totalProtectedBytes: number;
    rtoExceededTasks: number;
    rtoUnmeasuredTasks: number;
  };
  tasks: ComplianceRow[];
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/**
 * The compliance evidence of every task over the last `days` days, RTO columns included. A
 * disabled task is `not_applicable`; an enabled one is `at_risk` when it never succeeded, its
 * RPO is exceeded, or its last measured restore exceeded its RTO; `ok` otherwise.
 * An RTO that was never (or not recently) measured is reported as `unmeasured` without making
 * the task at risk: the column says what is not proven.
 */
export async function complianceReport(
  em: EntityManager,
  config: Config,
  days: number,
  now = new Date(),
): Promise<ComplianceReport> {
  const [tasks, nodes, evidence] = await Promise.all([
    em.find(
      BackupTaskEntity,
      {},
      {
        orderBy: { id: 'asc' },
        fields: [
          'id',
          'name',
          'type',
          'enabled',
          'nodeId',
          'nodeLabel',
          'cronExpr',
          'encrypt',
          'retentionDays',
          'slaHoursRpo',
          'rtoMinutes',
          'createdAt',
        ],
      },
    ),
    em.find(NodeEntity, {}, { fields: ['id', 'name', 'isLocal'] }),
    taskEvidence(em, windowStart(days, now)),
  ]);
  const local = nodes.find((n) => n.isLocal);
  const nodeName = (id: number, label: string) =>
    label ? `label:${label}` : id === 0 ? (local?.name ?? 'master') : (nodes.find((n) => n.id === id)?.name ?? '');
  const maxAge = config.rtoEvidenceMaxAgeSeconds * 1000;
  const rows = tasks.map((t): ComplianceRow => {
    const e = evidenceOf(evidence, t.id);
    const rto = t.rtoMinutes > 0 ? rtoStatus(t.rtoMinutes, e, maxAge, now) : null;
    const rpoMissed = t.slaHoursRpo > 0 && hoursSince(e, t.createdAt, now) > t.slaHoursRpo;
    const risk: Risk = !t.enabled
      ? 'not_applicable'
      : !e.lastSuccessAt || rpoMissed || rto?.status === 'exceeded'
        ? 'at_risk'
        : 'ok';
    return {
      taskId: t.id,
      taskName: t.name,
      type: t.type,
      enabled: t.enabled,
      nodeName: nodeName(t.nodeId, t.nodeLabel),
      cronExpr: t.cronExpr,
      encrypted: t.encrypt,
      retentionDays: t.retentionDays,
      slaHoursRpo: t.slaHoursRpo,
      totalRuns: e.runs,
      successes: e.successes,
      failures: e.failures,
      successRate: e.runs === 0 ? 0 : round4(e.successes / e.runs),
      lastStatus: e.lastStatus ?? 'none',
      ...(e.lastRunAt ? { lastRunAt: e.lastRunAt.toISOString() } : {}),
      ...(e.lastSuccessAt ? { lastSuccessAt: e.lastSuccessAt.toISOString() } : {}),
      protectedBytes: e.protectedBytes,
      compliant: risk === 'ok',
      risk,
      rtoMinutes: t.rtoMinutes,
      rtoStatus: rto?.status ?? 'not_set',
      measuredRestoreMinutes: rto?.measuredMinutes ?? null,
      lastDeepVerifyStatus: e.lastDeepVerify?.status ?? 'none',
      ...(e.lastDeepVerify?.completedAt ? { lastDeepVerifyAt: e.lastDeepVerify.completedAt.toISOString() } : {}),
    };
  });
  const runs = rows.reduce((n, r) => n + r.totalRuns, 0);
  return {
    generatedAt: now.toISOString(),
    rangeDays: days,
    summary: {
      totalTasks: rows.length,
      enabledTasks: rows.filter((r) => r.enabled).length,
      compliantTasks: rows.filter((r) => r.risk === 'ok').length,
      atRiskTasks: rows.filter((r) => r.risk === 'at_risk').length,
      encryptedTasks: rows.filter((r) => r.encrypted).length,
      overallSuccessRate: runs === 0 ? 0 : round4(rows.reduce((n, r) => n + r.successes, 0) / runs),
      totalProtectedBytes: rows.reduce((n, r) => n + r.protectedBytes, 0),
      rtoExceededTasks: rows.filter((r) => r.enabled && r.rtoStatus === 'exceeded').length,
      rtoUnmeasuredTasks: rows.filter((r) => r.enabled && r.rtoStatus === 'unmeasured').length,
    },
    tasks: rows,
  };
}
