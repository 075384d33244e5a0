import type { Node } from '../../db/entities/node.ts';
import type { NodeView } from './node-schemas.ts';
import { nodeStatus } from '../../agent-protocol/node-status.ts';

/** What a view needs besides the row: its record counts. */
export interface NodeCounts {
  running: number;
  queued: number;
  /** Agent commands waiting for or held by the node. */
  commands: number;
  /** Commands the master took back from this node's agent in the last 24 hours. */
  lost: number;
}

/** `offline`, `degraded` (it reports an error, or lost work in the last day) or `healthy`. */
export function nodeHealth(node: Pick<Node, 'lastSeenAt' | 'lastError'>, counts: Pick<NodeCounts, 'lost'>, offlineSeconds: number, now = Date.now()): 'offline' | 'degraded' | 'healthy' {
  if (nodeStatus(node, offlineSeconds, now) === 'offline') return 'offline';
  return node.lastError !== '' || counts.lost > 0 ? 'degraded' : 'healthy';
}

/** The public shape of a node: never a token or a token hash. */
export function toNodeView(node: Node, counts: NodeCounts, offlineSeconds: number, now = Date.now()): NodeView {
  return {
    id: node.id,
    name: node.name,
    hostname: node.hostname,
    ipAddress: node.ipAddress,
    status: nodeStatus(node, offlineSeconds, now),
    health: nodeHealth(node, counts, offlineSeconds, now),
    isLocal: node.isLocal,
    os: node.os,
    arch: node.arch,
    agentVersion: node.agentVersion,
    lastSeen: node.lastSeenAt?.toISOString() ?? null,
    maxConcurrent: node.maxConcurrent,
    bandwidthLimit: node.bandwidthLimit,
    labels: node.labels,
    lastError: node.lastError,
    runningTasks: counts.running,
    queue: { pending: counts.queued, commands: counts.commands, lost24h: counts.lost },
    createdAt: node.createdAt.toISOString(),
    updatedAt: node.updatedAt.toISOString(),
  };
}
