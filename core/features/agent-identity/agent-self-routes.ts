import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ok } from '../../http/envelope.ts';
import { envelopeOf, NullableTimestamp } from '../../http/schemas.ts';
import { AppError } from '../../http/app-error.ts';
import { NodeEntity } from '../../db/entities/node.ts';

/** `GET /api/v1/agent/self`: an installer proves its node token before it writes a service unit. */
export async function agentSelfRoutes(app: FastifyInstance): Promise<void> {
  const Self = Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
    lastSeen: NullableTimestamp,
  });
  app.get(
    '/api/v1/agent/self',
    { config: { access: 'agent' }, schema: { response: { 200: envelopeOf(Self) } } },
    async (request) => {
      const p = request.principal;
      if (p?.kind !== 'agent') throw new AppError('AUTH_UNAUTHORIZED');
      const node = await request.diScope.cradle.em.findOneOrFail(NodeEntity, { id: p.nodeId });
      const status =
        node.lastSeenAt &&
        Date.now() - node.lastSeenAt.getTime() < request.diScope.cradle.config.nodeOfflineSeconds * 1000
          ? 'online'
          : 'offline';
      return ok({ id: node.id, name: node.name, status, lastSeen: node.lastSeenAt?.toISOString() ?? null });
    },
  );
}
