import type { EntityManager } from '@mikro-orm/core';
import type { Node } from '../../db/entities/node.ts';
import { AgentCommandEntity } from '../../db/entities/agent-command.ts';
import { BackupRecordEntity } from '../../db/entities/backup-record.ts';
import { NO_WORK, type NodeCounts } from './node-view.ts';

const DAY_MS = 24 * 3600_000;

function older(a: Date | null, b: Date | null | undefined): Date | null {
  if (!b) return a;
  return !a || b < a ? b : a;
}

/** The queue summary of each node, in at most three queries for a whole page of nodes. */
export async function nodeCounts(em: EntityManager, nodes: Node[]): Promise<Map<number, NodeCounts>> {
  const counts = new Map<number, NodeCounts>(nodes.map((n) => [n.id, { ...NO_WORK }]));
  const remote = nodes.filter((n) => !n.isLocal).map((n) => n.id);
  if (remote.length > 0) {
    const since = new Date(Date.now() - DAY_MS);
    const commands = await em.find(
      AgentCommandEntity,
      { nodeId: { $in: remote }, $or: [{ status: { $in: ['pending', 'claimed'] } }, { lostAt: { $gt: since } }] },
      { fields: ['id', 'nodeId', 'status', 'lostAt', 'createdAt', 'claimedAt'] },
    );
    for (const c of commands) {
      const n = counts.get(c.nodeId)!;
      if (c.status === 'pending') {
        n.pending += 1;
        n.oldestActiveAt = older(n.oldestActiveAt, c.createdAt);
      } else if (c.status === 'claimed') {
        n.dispatched += 1;
        n.oldestActiveAt = older(n.oldestActiveAt, c.claimedAt ?? c.createdAt);
      }
      if (c.lostAt && c.lostAt > since) n.timeouts += 1;
    }
    for (const r of await em.find(
      BackupRecordEntity,
      { nodeId: { $in: remote }, status: 'running' },
      { fields: ['id', 'nodeId'] },
    ))
      counts.get(r.nodeId)!.running += 1;
  }
  const local = nodes.find((n) => n.isLocal);
  if (local) {
    // The master's own work: its records carry nodeId 0.
    const n = counts.get(local.id)!;
    for (const r of await em.find(
      BackupRecordEntity,
      { nodeId: 0, status: { $in: ['queued', 'running'] } },
      { fields: ['id', 'status', 'queuedAt', 'startedAt'] },
    )) {
      if (r.status === 'queued') {
        n.pending += 1;
        n.oldestActiveAt = older(n.oldestActiveAt, r.queuedAt);
      } else {
        n.dispatched += 1;
        n.running += 1;
        n.oldestActiveAt = older(n.oldestActiveAt, r.startedAt ?? r.queuedAt);
      }
    }
  }
  return counts;
}
