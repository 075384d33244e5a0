import type { FastifyRequest } from 'fastify';
import type { AuditActor } from './audit-writer.ts';

/** Who made this request and from where, as the audit trail records it. */
export function auditActor(request: FastifyRequest): AuditActor {
  return { principal: request.principal, clientIp: request.ip };
}
