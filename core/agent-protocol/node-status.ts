import type { Node } from '../db/entities/node.ts';

/** A node is online while its agent was heard from within `offlineSeconds`; the local node is the master itself, always online. */
export function nodeStatus(
  node: Pick<Node, 'lastSeenAt'> & { isLocal?: boolean },
  offlineSeconds: number,
  now = Date.now(),
): 'online' | 'offline' {
  if (node.isLocal) return 'online';
  return node.lastSeenAt && now - node.lastSeenAt.getTime() < offlineSeconds * 1000 ? 'online' : 'offline';
}
