import type { Node } from '../db/entities/node.ts';

/** A node is online while its agent was heard from within `offlineSeconds`. */
export function nodeStatus(node: Pick<Node, 'lastSeenAt'>, offlineSeconds: number, now = Date.now()): 'online' | 'offline' {
  return node.lastSeenAt && now - node.lastSeenAt.getTime() < offlineSeconds * 1000 ? 'online' : 'offline';
}
