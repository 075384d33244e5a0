import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { normaliseTags } from '../backup-tasks/backup-task-service.ts';
import { HeartbeatInput, HeartbeatReply } from '../../agent-protocol/wire.ts';

/** `POST /api/agent/heartbeat`: X-Agent-Token only (the guard's `agent` label); the node is the token's. */
export async function heartbeatRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/agent/heartbeat',
    {
      // Every agent calls this every few seconds: request lines would drown the log.
      logLevel: 'warn',
      config: { access: 'agent' },
      schema: {
        // An agent with nothing to report may send no body at all (that reaches validation as null).
        body: Type.Union([HeartbeatInput, Type.Null()]),
        response: { 200: envelopeOf(HeartbeatReply) },
      },
    },
    async (request) => {
      const p = request.principal;
      if (p?.kind !== 'agent') throw new AppError('AUTH_UNAUTHORIZED');
      const { config, commandQueue, leaseMonitor } = request.diScope.cradle;
      const body = request.body ?? {};
      if (!(await request.diScope.cradle.nodes.heartbeat(p.nodeId, body, request.ip)))
        throw new AppError('AUTH_UNAUTHORIZED');
      // The node's settings came with its token (cached for a few seconds, dropped when the node changes).
      const node = p.node;
      // A heartbeat renews the node's leases; what a starting agent's predecessor held is settled now.
      for (const command of await commandQueue.renew(p.nodeId, body.inFlight, body.starting === true)) {
        await leaseMonitor.lost(command, 'the agent restarted and no longer runs this command');
      }
      return ok({
        nodeId: node.nodeId,
        name: node.nodeName,
        serverTime: new Date().toISOString(),
        offlineAfterSeconds: config.nodeOfflineSeconds,
        leaseSeconds: config.commandLeaseSeconds,
        maxConcurrent: node.maxConcurrent,
        bandwidthLimit: node.bandwidthLimit,
        labels: normaliseTags(node.labels),
      });
    },
  );
}
