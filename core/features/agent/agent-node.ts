import type { FastifyRequest } from 'fastify';
import { AppError } from '../../http/app-error.ts';

/** The node whose token authenticated this agent request (the guard's `agent` label set it). */
export function agentNodeId(request: FastifyRequest): number {
  const p = request.principal;
  if (p?.kind !== 'agent') throw new AppError('AUTH_UNAUTHORIZED');
  return p.nodeId;
}
