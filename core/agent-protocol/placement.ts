import type { EntityManager } from '@mikro-orm/core';
import { NodeEntity, type Node } from '../db/entities/node.ts';
import { AgentCommandEntity } from '../db/entities/agent-command.ts';
import { BackupRecordEntity } from '../db/entities/backup-record.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import { nodeStatus } from './node-status.ts';
import { AppError } from '../http/app-error.ts';

/** What placement weighs besides the nodes themselves. */
export interface PlacementLimits {
  offlineSeconds: number;
  /** The master's concurrent runs (BACKPLANE_MAX_CONCURRENT): the local node's slots in a pool. */
  masterSlots: number;
}

/** The task runs on the master (no node, no pool). */
export function runsOnMaster(task: Pick<BackupTask, 'nodeId' | 'nodeLabel'>): boolean {
  return task.nodeId === 0 && task.nodeLabel === '';
}

/** The `nodeId` a placed run's record carries: 0 (the master's own queue) when placement picked the local node. */
export function recordNodeId(node: Pick<Node, 'id' | 'isLocal'>): number {
  return node.isLocal ? 0 : node.id;
}

function hasLabel(node: Node, label: string): boolean {
  return node.labels
    .split(',')
    .map((l) => l.trim())
    .includes(label);
}

/**
 * The least busy of a pool: open work per slot, then open work (so unlimited nodes, never
 * full, still share), then the lower id. A node's `maxConcurrent` 0 is unlimited; the local
 * node's open work is the master's queued and running backups, over the master's slots.
 */
async function leastBusy(em: EntityManager, candidates: Node[], limits: PlacementLimits): Promise<Node> {
  const remote = candidates.filter((n) => !n.isLocal).map((n) => n.id);
  const open =
    remote.length > 0
      ? await em.find(
          AgentCommandEntity,
          { nodeId: { $in: remote }, status: { $in: ['pending', 'claimed'] }, recordKind: { $ne: '' } },
          { fields: ['nodeId'] },
        )
      : [];
  const masterOpen = candidates.some((n) => n.isLocal)
    ? await em.count(BackupRecordEntity, { nodeId: 0, status: { $in: ['queued', 'running'] } })
    : 0;
  const openOf = (n: Node): number => (n.isLocal ? masterOpen : open.filter((c) => c.nodeId === n.id).length);
  const slotsOf = (n: Node): number =>
    n.isLocal ? Math.max(1, limits.masterSlots) : n.maxConcurrent === 0 ? Infinity : n.maxConcurrent;
  const key = (n: Node): [number, number, number] => [openOf(n) / slotsOf(n), openOf(n), n.id];
  const before = (a: [number, number, number], b: [number, number, number]): boolean =>
    a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
  return candidates.reduce((best, n) => (before(key(n), key(best)) ? n : best));
}

/**
 * Picks the node a run goes to: the task's own node, or the least busy online node carrying
 * the task's label (the local node too, when it carries it). An offline or missing node is
 * refused with NODE_OFFLINE and a reason a user can act on. The local node is always online:
 * a run placed there goes to the master's queue (see `recordNodeId`).
 */
export async function placeRun(
  em: EntityManager,
  task: Pick<BackupTask, 'name' | 'nodeId' | 'nodeLabel'>,
  limits: PlacementLimits,
): Promise<Node> {
  if (task.nodeLabel !== '') {
    const candidates = (await em.find(NodeEntity, {}, { orderBy: { id: 'asc' } })).filter(
      (n) => hasLabel(n, task.nodeLabel) && nodeStatus(n, limits.offlineSeconds) === 'online',
    );
    if (candidates.length === 0)
      throw new AppError('NODE_OFFLINE', {
        message: `No online node has the label "${task.nodeLabel}" that task "${task.name}" runs on.`,
      });
    return leastBusy(em, candidates, limits);
  }
  const node = await em.findOne(NodeEntity, { id: task.nodeId });
  if (!node)
    throw new AppError('NODE_OFFLINE', { message: `Node ${task.nodeId} of task "${task.name}" no longer exists.` });
  if (nodeStatus(node, limits.offlineSeconds) !== 'online') {
    const seen = node.lastSeenAt ? `last seen ${node.lastSeenAt.toISOString()}` : 'its agent has never connected';
    throw new AppError('NODE_OFFLINE', { message: `Node "${node.name}" is offline (${seen}).` });
  }
  return node;
}
