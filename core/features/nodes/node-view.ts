import type { Node } from '../../db/entities/node.ts';
import type { NodeView } from './node-schemas.ts';
import { nodeStatus } from '../../agent-protocol/node-status.ts';

/**
 * A node's work as its queue summary counts it. For a remote node: its agent commands
 * (`pending` waiting, `dispatched` claimed by the agent) and the commands the master took back
 * in the last 24 hours (`timeouts`). For the local node: the master's own backups (queued,
 * running). `running` is the backups running there.
 */
export interface NodeCounts {
  pending: number;
  dispatched: number;
  timeouts: number;
  running: number;
  /** When the oldest waiting or claimed work was queued or claimed. */
  oldestActiveAt: Date | null;
}

export const NO_WORK: NodeCounts = { pending: 0, dispatched: 0, timeouts: 0, running: 0, oldestActiveAt: null };

/** `offline`, `degraded` (it reports an error, or lost work in the last day) or `healthy`. */
export function nodeHealth(
  node: Pick<Node, 'lastSeenAt' | 'lastError' | 'isLocal'>,
  counts: Pick<NodeCounts, 'timeouts'>,
  offlineSeconds: number,
  now = Date.now(),
): 'offline' | 'degraded' | 'healthy' {
  if (nodeStatus(node, offlineSeconds, now) === 'offline') return 'offline';
  return node.lastError !== '' || counts.timeouts > 0 ? 'degraded' : 'healthy';
}

/** The public shape of a node: never a token or a token hash. */
export function toNodeView(node: Node, counts: NodeCounts, offlineSeconds: number, now = Date.now()): NodeView {
  // The master answering this request is the local node's proof of life.
  const lastSeen = node.isLocal ? new Date(now) : node.lastSeenAt;
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
    lastSeen: lastSeen?.toISOString() ?? null,
    maxConcurrent: node.maxConcurrent,
    bandwidthLimit: node.bandwidthLimit,
    labels: node.labels,
    lastError: node.lastError,
    runningTasks: counts.running,
    queue: {
      pending: counts.pending,
      dispatched: counts.dispatched,
      depth: counts.pending + counts.dispatched,
      timeouts: counts.timeouts,
      ...(counts.oldestActiveAt ? { oldestActiveAt: counts.oldestActiveAt.toISOString() } : {}),
      oldestActiveAgeSeconds: counts.oldestActiveAt
        ? Math.max(0, Math.floor((now - counts.oldestActiveAt.getTime()) / 1000))
        : 0,
    },
    createdAt: node.createdAt.toISOString(),
    updatedAt: node.updatedAt.toISOString(),
  };
}
