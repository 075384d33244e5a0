import type { EntityManager } from '@mikro-orm/core';
import type { Config } from '../../config/config.ts';
import { VERSION } from '../../engine/index.ts';
import { AggregateSql, num, timeOf } from '../../db/aggregate-sql.ts';
import { BackupRecordEntity, BackupRecordCopyEntity } from '../../db/entities/backup-record.ts';
import { BackupTaskEntity } from '../../db/entities/backup-task.ts';
import { NodeEntity, type Node } from '../../db/entities/node.ts';
import { nodeStatus } from '../../agent-protocol/node-status.ts';
import { isOutdated } from '../../agent-protocol/node-monitor.ts';
import { recordSummary } from '../backup-records/backup-record-view.ts';
import type { RecordLogHub } from '../../backup/record-log.ts';
import { taskEvidence, evidenceOf, rtoStatus, hoursSince, windowStart } from '../../insight/task-evidence.ts';

const DAY_MS = 86_400_000;
const iso = (d: Date | null) => d?.toISOString();

/**
 * The dashboard (spec 4.5), every figure an aggregate in the database.
 * The master's own runs carry node 0 and count for the local node; agent runs count like them.
 */
export class DashboardService {
  readonly #em: EntityManager;
  readonly #config: Config;
  readonly #recordLogs: RecordLogHub;

  constructor({ em, config, recordLogs }: { em: EntityManager; config: Config; recordLogs: RecordLogHub }) {
    this.#em = em;
    this.#config = config;
    this.#recordLogs = recordLogs;
  }

  get #sql() {
    return new AggregateSql(this.#em);
  }

  async stats(now = new Date()) {
    const sql = this.#sql;
    const since30 = sql.time(new Date(now.getTime() - 30 * DAY_MS));
    const [[tasks], [records], [recent30], storage, [dedup]] = await Promise.all([
      sql.rows('select count(*) as total, sum(case when enabled then 1 else 0 end) as enabled from backup_tasks'),
      sql.rows('select count(*) as total, sum(file_size) as bytes, max(started_at) as last from backup_records'),
      sql.rows(
        "select count(*) as total, sum(case when status = 'success' then 1 else 0 end) as success from backup_records where started_at >= ?",
        [since30],
      ),
      sql.rows(
        "select storage_target_id, sum(file_size) as total from backup_record_copies where status = 'success' group by storage_target_id order by total desc",
      ),
      // What repository runs read against what they added after deduplication (docs/repositories.md).
      sql.rows(
        `select count(*) as n, sum(raw_size) as bytes_read, sum(file_size) as bytes_added from backup_records
        where backup_kind = 'repository' and status in ('success', 'partial') and started_at >= ?`,
        [since30],
      ),
    ]);
    const latest = await this.#em.find(BackupRecordEntity, {}, { orderBy: { id: 'desc' }, limit: 10 });
    const copies = latest.length
      ? await this.#em.find(
          BackupRecordCopyEntity,
          { recordId: { $in: latest.map((r) => r.id) } },
          { orderBy: { id: 'asc' } },
        )
      : [];
    const targetNames = await this.#targetNames();
    const started = num(recent30!.total);
    return {
      totalTasks: num(tasks!.total),
      enabledTasks: num(tasks!.enabled),
      totalRecords: num(records!.total),
      // Success over all records started in the last 30 days, as a 0..1 fraction (0 with none).
      successRate: started === 0 ? 0 : Math.round((num(recent30!.success) / started) * 10_000) / 10_000,
      totalBackupBytes: num(records!.bytes),
      ...(timeOf(records!.last) ? { lastBackupAt: iso(timeOf(records!.last)) } : {}),
      recentRecords: latest.map((r) =>
        recordSummary(
          r,
          copies.filter((c) => c.recordId === r.id),
          this.#recordLogs.lastProgress(r.id),
        ),
      ),
      deduplication: deduplication(num(dedup!.n), num(dedup!.bytes_read), num(dedup!.bytes_added)),
      // Bytes stored per target: the copies there that hold an artifact (a replica counts where it lives).
      storageUsage: storage.map((s) => ({
        storageTargetId: num(s.storage_target_id),
        targetName: targetNames.get(num(s.storage_target_id)) ?? `target ${num(s.storage_target_id)}`,
        totalSize: num(s.total),
      })),
    };
  }

  /** One row per UTC day with records started in the window (days without any are omitted). */
  async timeline(days: number, now = new Date()) {
    const sql = this.#sql;
    const rows = await sql.rows(
      `select ${sql.day('started_at')} as day, count(*) as total,
      sum(case when status = 'success' then 1 else 0 end) as success, sum(case when status = 'failed' then 1 else 0 end) as failed,
      sum(case when status = 'partial' then 1 else 0 end) as partial
      from backup_records where started_at >= ? group by ${sql.day('started_at')} order by day`,
      [sql.time(windowStart(days, now))],
    );
    return rows.map((r) => ({
      date: String(r.day),
      total: num(r.total),
      success: num(r.success),
      failed: num(r.failed),
      partial: num(r.partial),
    }));
  }

  async #targetNames(): Promise<Map<number, string>> {
    const rows = await this.#sql.rows('select id, name from storage_targets');
    return new Map(rows.map((r) => [num(r.id), String(r.name)]));
  }

  async #nodes(): Promise<{ nodes: Node[]; local: Node | undefined }> {
    const nodes = await this.#em.find(NodeEntity, {}, { orderBy: { id: 'asc' } });
    return { nodes, local: nodes.find((n) => n.isLocal) };
  }

  /** Task and record counts by type, node, status and target. Tasks on node 0 belong to the local node. */
  async breakdown(days: number, now = new Date()) {
    const sql = this.#sql;
    const [byType, byNode, byStatus, byStorage, { nodes, local }] = await Promise.all([
      sql.rows('select type as k, count(*) as n from backup_tasks group by type'),
      sql.rows('select node_id as k, count(*) as n from backup_tasks group by node_id'),
      sql.rows(
        `select ${sql.groupKey('status')} as k, count(*) as n from backup_records where started_at >= ? group by 1`,
        [sql.time(windowStart(days, now))],
      ),
      sql.rows(
        "select storage_target_id as k, count(*) as n, sum(file_size) as total from backup_record_copies where status = 'success' group by storage_target_id",
      ),
      this.#nodes(),
    ]);
    const targetNames = await this.#targetNames();
    const nodeName = (id: number) => (id === 0 ? 'master' : (nodes.find((n) => n.id === id)?.name ?? `node ${id}`));
    const sorted = <T extends { count: number }>(items: T[]) => items.sort((a, b) => b.count - a.count);
    // One place per node, keyed by its real id (tasks naming node 0 count for the local node).
    const nodeCounts = countByPlace(byNode.map((r) => [masterAsLocal(num(r.k), local), num(r.n)]));
    return {
      byType: sorted(byType.map((r) => ({ key: String(r.k), label: String(r.k), count: num(r.n) }))),
      byStatus: sorted(byStatus.map((r) => ({ key: String(r.k), label: String(r.k), count: num(r.n) }))),
      byNode: sorted(
        [...nodeCounts].map(([id, count]) => ({
          key: String(id),
          label: nodeName(id),
          count,
          isLocal: isMaster(id, local),
        })),
      ),
      byStorage: sorted(
        byStorage.map((r) => ({
          key: String(r.k),
          label: targetNames.get(num(r.k)) ?? `target ${num(r.k)}`,
          count: num(r.n),
          totalSize: num(r.total),
        })),
      ),
    };
  }

  /** Runs per node in the window: successes, failures, bytes and mean duration of the successes. */
  async nodePerformance(days: number, now = new Date()) {
    const sql = this.#sql;
    const [rows, { nodes, local }] = await Promise.all([
      sql.rows(
        `select ${sql.groupKey('node_id')} as node_id, count(*) as runs, sum(case when status = 'success' then 1 else 0 end) as ok,
        sum(case when status = 'failed' then 1 else 0 end) as failed,
        sum(case when status = 'success' then file_size else 0 end) as bytes,
        avg(case when status = 'success' then duration_ms end) as avg_ms
        from backup_records where started_at >= ? group by 1`,
        [sql.time(windowStart(days, now))],
      ),
      this.#nodes(),
    ]);
    // Node 0 is the master: its runs count for the local node (the two never both have rows).
    const byNode = new Map(rows.map((r) => [masterAsLocal(num(r.node_id), local), r]));
    const known = new Set(nodes.map((n) => n.id));
    const places = [
      ...nodes.map((n) => ({ id: n.id, name: n.name, isLocal: n.isLocal })),
      // Runs of a node deleted since still count, under its number.
      ...[...byNode.keys()]
        .filter((id) => !known.has(id))
        .map((id) => ({ id, name: id === 0 ? 'master' : `node ${id}`, isLocal: id === 0 })),
    ];
    const list = places.map((n) => {
      const r = byNode.get(n.id);
      const runs = num(r?.runs);
      const ok = num(r?.ok);
      return {
        nodeId: n.id,
        nodeName: n.name,
        isLocal: n.isLocal,
        totalRuns: runs,
        successRuns: ok,
        failedRuns: num(r?.failed),
        successRate: runs === 0 ? 0 : Math.round((ok / runs) * 10_000) / 10_000,
        totalBytes: num(r?.bytes),
        avgDurationSecs: Math.round(num(r?.avg_ms) / 100) / 10,
      };
    });
    return list.sort((a, b) => b.successRate - a.successRate || b.totalRuns - a.totalRuns);
  }

  /** Every node with its effective status, agent version against the master's, and its task count. */
  async cluster(now = new Date()) {
    const sql = this.#sql;
    const [{ nodes, local }, counts] = await Promise.all([
      this.#nodes(),
      sql.rows('select node_id, count(*) as n from backup_tasks group by node_id'),
    ]);
    const taskCount = countByPlace(counts.map((r) => [masterAsLocal(num(r.node_id), local), num(r.n)]));
    const items = nodes.map((n) => {
      const status = nodeStatus(n, this.#config.nodeOfflineSeconds, now.getTime());
      const versionStatus: 'current' | 'outdated' | 'unknown' = n.isLocal
        ? 'current'
        : n.agentVersion === ''
          ? 'unknown'
          : isOutdated(n.agentVersion)
            ? 'outdated'
            : 'current';
      return {
        id: n.id,
        name: n.name,
        hostname: n.hostname,
        status,
        isLocal: n.isLocal,
        agentVersion: n.isLocal ? VERSION : n.agentVersion,
        versionStatus,
        lastSeen: n.isLocal ? now.toISOString() : (n.lastSeenAt?.toISOString() ?? ''),
        taskCount: taskCount.get(n.id) ?? 0,
      };
    });
    return {
      masterVersion: VERSION,
      totalNodes: items.length,
      onlineNodes: items.filter((n) => n.status === 'online').length,
      offlineNodes: items.filter((n) => n.status === 'offline').length,
      outdatedAgents: items.filter((n) => n.versionStatus === 'outdated').length,
      nodes: items,
    };
  }

  /** RPO of every enabled task with `slaHoursRpo`, and RTO evidence of every enabled task with `rtoMinutes`. */
  async sla(now = new Date()) {
    const tasks = await this.#em.find(
      BackupTaskEntity,
      { enabled: true, $or: [{ slaHoursRpo: { $gt: 0 } }, { rtoMinutes: { $gt: 0 } }] },
      { fields: ['id', 'name', 'nodeId', 'slaHoursRpo', 'rtoMinutes', 'createdAt'], orderBy: { id: 'asc' } },
    );
    const [evidence, { nodes, local }] = await Promise.all([
      taskEvidence(this.#em, new Date(now.getTime() - 30 * DAY_MS)),
      this.#nodes(),
    ]);
    const nodeName = (id: number) => (id === 0 ? 'master' : (nodes.find((n) => n.id === id)?.name ?? ''));
    const withRpo = tasks.filter((t) => t.slaHoursRpo > 0);
    const violations = withRpo.flatMap((t) => {
      const e = evidenceOf(evidence, t.id);
      const hours = hoursSince(e, t.createdAt, now);
      if (hours <= t.slaHoursRpo) return [];
      const nodeId = masterAsLocal(t.nodeId, local);
      return [
        {
          taskId: t.id,
          taskName: t.name,
          nodeId,
          nodeName: nodeName(nodeId),
          isLocal: isMaster(nodeId, local),
          slaHoursRpo: t.slaHoursRpo,
          ...(e.lastSuccessAt ? { lastSuccessAt: e.lastSuccessAt.toISOString() } : {}),
          hoursSinceLastSuccess: hours,
          neverSucceeded: !e.lastSuccessAt,
        },
      ];
    });
    const maxAge = this.#config.rtoEvidenceMaxAgeSeconds * 1000;
    const rto = tasks
      .filter((t) => t.rtoMinutes > 0)
      .map((t) => {
        const e = evidenceOf(evidence, t.id);
        const r = rtoStatus(t.rtoMinutes, e, maxAge, now);
        return {
          taskId: t.id,
          taskName: t.name,
          rtoMinutes: t.rtoMinutes,
          rtoStatus: r.status,
          measuredMinutes: r.measuredMinutes,
          measuredAt: r.measuredAt?.toISOString() ?? null,
          verifyRecordId: r.verifyRecordId,
          lastDeepVerifyStatus: e.lastDeepVerify?.status ?? null,
        };
      });
    return {
      totalTasksWithSla: withRpo.length,
      compliant: withRpo.length - violations.length,
      violated: violations.length,
      coverageRate:
        withRpo.length === 0
          ? 1
          : Math.round(((withRpo.length - violations.length) / withRpo.length) * 10_000) / 10_000,
      violations,
      totalTasksWithRto: rto.length,
      rtoOk: rto.filter((r) => r.rtoStatus === 'ok').length,
      rtoExceeded: rto.filter((r) => r.rtoStatus === 'exceeded').length,
      rtoUnmeasured: rto.filter((r) => r.rtoStatus === 'unmeasured').length,
      rtoEvidenceMaxAgeDays: Math.round(maxAge / DAY_MS),
      rto,
    };
  }
}

/**
 * Node 0 (the master's own runs and tasks) is the local node, when it exists: every insight
 * route names a place by the id `GET /api/nodes` gives it, with `isLocal` for the master, so
 * their figures join on it (docs/insight.md).
 */
function masterAsLocal(nodeId: number, local: Node | undefined): number {
  return nodeId === 0 && local ? local.id : nodeId;
}

function isMaster(id: number, local: Node | undefined): boolean {
  return id === 0 || id === local?.id;
}

/** Sums counts of the same place (node 0 and the local node's id can both have rows). */
function countByPlace(pairs: [number, number][]): Map<number, number> {
  const out = new Map<number, number>();
  for (const [id, n] of pairs) out.set(id, (out.get(id) ?? 0) + n);
  return out;
}

/**
 * Repository runs of the last 30 days: the bytes they read, the bytes they added to their
 * repositories, and the ratio of the two (2 = half of what was read was already stored; 0 without
 * runs or without bytes added).
 */
function deduplication(records: number, bytesRead: number, bytesAdded: number) {
  return {
    records,
    bytesRead,
    bytesAdded,
    ratio: bytesAdded === 0 ? 0 : Math.round((bytesRead / bytesAdded) * 100) / 100,
  };
}
