import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { NodeEntity, type Node } from '../db/entities/node.ts';
import { hostInfo } from '../engine/index.ts';

/** The name the local node gets when it is created (an admin may rename it). */
const LOCAL_NODE_NAME = 'Local (master)';

/**
 * The node that stands for the master itself (`isLocal: true`, first in node lists): created at
 * start-up when missing, its host facts refreshed otherwise. It has no agent token, so no agent
 * can authenticate as it; tasks placed on it run on the master.
 */
export async function ensureLocalNode(em: EntityManager, version: string): Promise<Node> {
  const facts = { ...hostInfo(), agentVersion: version, lastSeenAt: new Date() };
  const existing = await em.findOne(NodeEntity, { isLocal: true });
  if (existing) {
    em.assign(existing, facts);
    await em.flush();
    return existing;
  }
  // A remote node may already carry the name: the next free "<name> <n>" is taken then.
  for (let n = 1; n <= 100; n++) {
    const name = n === 1 ? LOCAL_NODE_NAME : `${LOCAL_NODE_NAME} ${n}`;
    if ((await em.count(NodeEntity, { name })) > 0) continue;
    try {
      const node = em.create(NodeEntity, { name, isLocal: true, tokenHash: null, maxConcurrent: 0, ...facts });
      await em.flush();
      return node;
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      // Another master starting on the same database created it first (or took the name).
      em.clear();
      const raced = await em.findOne(NodeEntity, { isLocal: true });
      if (raced) return raced;
    }
  }
  throw new Error(`no free name for the local node (tried "${LOCAL_NODE_NAME}" to "${LOCAL_NODE_NAME} 100")`);
}

/** Whether the node is the master itself (work for it stays on the master). */
export async function isLocalNode(em: EntityManager, nodeId: number): Promise<boolean> {
  return (await em.count(NodeEntity, { id: nodeId, isLocal: true })) > 0;
}
