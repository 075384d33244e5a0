import type { EntityManager } from '@mikro-orm/core';
import type { Config } from '../config/config.ts';
import type { CommandQueue } from './command-queue.ts';
import { NodeEntity } from '../db/entities/node.ts';
import type { CommandType } from '../db/entities/agent-command.ts';
import { nodeStatus } from './node-status.ts';
import { AppError } from '../http/app-error.ts';

/** How long a request waits for an agent's answer (agents poll every few seconds). */
export const AGENT_RPC_WAIT_MS = 15_000;

/**
 * Asks a node's agent something the master cannot see (a directory, the databases a host
 * serves) and waits for the answer: a command, a bounded wait, and clear codes for an offline
 * node (409 NODE_OFFLINE), no answer in time (504 AGENT_COMMAND_TIMEOUT), or the agent's own
 * failure (returned as `{error}` for the caller to code).
 */
export interface AgentRpcDeps {
  em: EntityManager;
  config: Pick<Config, 'nodeOfflineSeconds'>;
  commandQueue: CommandQueue;
  /** Aborted when the asker goes away (the HTTP client closed the connection). */
  signal: AbortSignal;
}

export async function askAgent(
  { em, config, commandQueue, signal }: AgentRpcDeps,
  nodeId: number,
  type: CommandType,
  payload: Record<string, unknown>,
  secrets?: Record<string, unknown>,
): Promise<{ result: unknown } | { error: string }> {
  const node = await em.findOne(NodeEntity, { id: nodeId });
  if (!node) throw new AppError('NODE_NOT_FOUND');
  if (nodeStatus(node, config.nodeOfflineSeconds) !== 'online')
    throw new AppError('NODE_OFFLINE', { message: `Node "${node.name}" is offline.` });
  const command = await commandQueue.enqueue({ nodeId: node.id, type, payload, ...(secrets ? { secrets } : {}) });
  const done = await commandQueue.waitFor(command.id, AGENT_RPC_WAIT_MS, signal);
  if (!done || done.status === 'pending' || done.status === 'claimed') {
    await commandQueue.settle(command.id, 'failed', 'no answer from the agent in time');
    throw new AppError('AGENT_COMMAND_TIMEOUT', {
      message: `Node "${node.name}" did not answer within ${AGENT_RPC_WAIT_MS / 1000} s.`,
    });
  }
  if (done.status === 'failed') return { error: done.error || 'the agent reported a failure without a reason' };
  return { result: JSON.parse(done.result || '{}') as unknown };
}
