import type { EntityManager } from '@mikro-orm/core';
import { NodeEntity, type Node } from '../db/entities/node.ts';
import { AgentCommandEntity } from '../db/entities/agent-command.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import { nodeStatus } from './node-status.ts';
import { AppError } from '../http/app-error.ts';

/** The task runs on the master (no node, no pool). */
export function runsOnMaster(task: Pick<BackupTask, 'nodeId' | 'nodeLabel'>): boolean {
  return task.nodeId === 0 && task.nodeLabel === '';
}

function hasLabel(node: Node, label: string): boolean {
  return node.labels.split(',').map((l) => l.trim()).includes(label);
}

/**
 * Picks the node a run goes to: the task's own node, or the least busy online node carrying
 * the task's label (open commands per slot, then the lower id). An offline or missing node
 * is refused with NODE_OFFLINE and a reason a user can act on.
 */
export async function placeRun(em: EntityManager, task: Pick<BackupTask, 'name' | 'nodeId' | 'nodeLabel'>, offlineSeconds: number): Promise<Node> {
  if (task.nodeLabel !== '') {
    const candidates = (await em.find(NodeEntity, { isLocal: false }, { orderBy: { id: 'asc' } }))
      .filter((n) => hasLabel(n, task.nodeLabel) && nodeStatus(n, offlineSeconds) === 'online');
    if (candidates.length === 0) throw new AppError('NODE_OFFLINE', { message: `No online node has the label "${task.nodeLabel}" that task "${task.name}" runs on.` });
    const open = await em.find(AgentCommandEntity, { nodeId: { $in: candidates.map((n) => n.id) }, status: { $in: ['pending', 'claimed'] }, recordKind: { $ne: '' } }, { fields: ['nodeId'] });
    const load = (n: Node): number => open.filter((c) => c.nodeId === n.id).length / Math.max(1, n.maxConcurrent);
    return candidates.reduce((best, n) => (load(n) < load(best) ? n : best));
  }
  const node = await em.findOne(NodeEntity, { id: task.nodeId });
  if (!node) throw new AppError('NODE_OFFLINE', { message: `Node ${task.nodeId} of task "${task.name}" no longer exists.` });
  if (nodeStatus(node, offlineSeconds) !== 'online') {
    const seen = node.lastSeenAt ? `last seen ${node.lastSeenAt.toISOString()}` : 'its agent has never connected';
    throw new AppError('NODE_OFFLINE', { message: `Node "${node.name}" is offline (${seen}).` });
  }
  return node;
}
