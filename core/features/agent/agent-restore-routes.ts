import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { IdParams, envelopeOf, rawResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { RestoreArtifactQuery, RestoreSpec, RestoreUpdateInput, UpdateReply } from '../../agent-protocol/wire.ts';
import { agentNodeId } from './agent-node.ts';

/** Restores on agents: instructions, the checked raw artifact, and state updates. */
export async function agentRestoreRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/agent/restores/:id/spec',
    {
      config: { access: 'agent' },
      schema: { params: IdParams, response: { 200: envelopeOf(RestoreSpec) } },
    },
    async (request, reply) => {
      const nodeId = agentNodeId(request);
      void reply.header('cache-control', 'no-store');
      return ok(await request.diScope.cradle.remoteRestores.spec(nodeId, request.params.id));
    },
  );

  app.get(
    '/api/agent/restores/:id/artifact',
    {
      config: { access: 'agent' },
      schema: {
        params: IdParams,
        querystring: RestoreArtifactQuery,
        response: {
          200: rawResponse(
            'The raw (decrypted, decompressed) artifact (part=base: the full of a differential); its size in X-Backplane-Raw-Size',
            ['application/octet-stream'],
            'binary',
          ),
        },
      },
    },
    async (request, reply) => {
      const nodeId = agentNodeId(request);
      const { stream, rawSize } = await request.diScope.cradle.remoteRestores.artifact(
        nodeId,
        request.params.id,
        request.query.part,
      );
      // A failed check errors the stream after the headers went out; Fastify then cuts the connection.
      return reply
        .header('content-type', 'application/octet-stream')
        .header('cache-control', 'no-store')
        .header('x-backplane-raw-size', String(rawSize))
        .send(stream);
    },
  );

  app.post(
    '/api/agent/restores/:id',
    {
      config: { access: 'agent' },
      schema: { params: IdParams, body: RestoreUpdateInput, response: { 200: envelopeOf(UpdateReply) } },
    },
    async (request) => {
      const nodeId = agentNodeId(request);
      return ok(await request.diScope.cradle.remoteRestores.update(nodeId, request.params.id, request.body));
    },
  );
}
