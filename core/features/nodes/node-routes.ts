import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import type { Node } from '../../db/entities/node.ts';
import {
  NodeBatchInput,
  NodeBatchResult,
  NodeInput,
  NodeListQuery,
  NodeUpdate,
  NodeView,
  NodeWithToken,
  RotatedToken,
} from './node-schemas.ts';
import { heartbeatRoutes } from './heartbeat-routes.ts';

/** Nodes admin API. Tokens appear only in the create/rotate answers: never in audit details or logs. */
export async function nodeRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, action: string, node: Pick<Node, 'id' | 'name'>, detail = '') =>
    request.diScope.cradle.audit.record(auditActor(request), {
      category: 'node',
      action,
      targetType: 'node',
      targetId: node.id,
      targetName: node.name,
      detail,
    });

  app.get(
    '/api/nodes',
    {
      config: { access: 'auth' },
      schema: { querystring: NodeListQuery, response: { 200: envelopeOf(Type.Array(NodeView)) } },
    },
    async (request, reply) => {
      const nodes = request.diScope.cradle.nodes;
      const [rows, total] = await nodes.list(request.query);
      setTotal(reply, total);
      return ok(await nodes.views(rows));
    },
  );

  app.get(
    '/api/nodes/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(NodeView) } },
    },
    async (request) => {
      const nodes = request.diScope.cradle.nodes;
      return ok(await nodes.view(await nodes.get(request.params.id)));
    },
  );

  app.post(
    '/api/nodes',
    {
      config: { access: 'admin', secret: true },
      schema: { body: NodeInput, response: { 200: envelopeOf(NodeWithToken) } },
    },
    async (request) => {
      const nodes = request.diScope.cradle.nodes;
      const { node, token } = await nodes.create(request.body);
      await audit(request, 'create', node);
      return ok({ node: await nodes.view(node), token });
    },
  );

  app.post(
    '/api/nodes/batch',
    {
      config: { access: 'admin', secret: true },
      schema: { body: NodeBatchInput, response: { 200: envelopeOf(NodeBatchResult) } },
    },
    async (request) => {
      const nodes = request.diScope.cradle.nodes;
      // All or nothing: a console asks for an installer for every returned id.
      const created = await nodes.createBatch(request.body.names);
      const results = [];
      for (const { node, token } of created) {
        await audit(request, 'create', node, 'batch');
        results.push({ id: node.id, name: node.name, node: await nodes.view(node), token });
      }
      return ok(results);
    },
  );

  app.put(
    '/api/nodes/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, body: NodeUpdate, response: { 200: envelopeOf(NodeView) } },
    },
    async (request) => {
      const nodes = request.diScope.cradle.nodes;
      const node = await nodes.update(request.params.id, request.body);
      await audit(request, 'update', node, Object.keys(request.body).join(', '));
      return ok(await nodes.view(node));
    },
  );

  app.delete(
    '/api/nodes/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const node = await request.diScope.cradle.nodes.delete(request.params.id);
      await audit(request, 'delete', { id: request.params.id, name: node.name });
      return ok({ deleted: true });
    },
  );

  app.post(
    '/api/nodes/:id/rotate-token',
    {
      config: { access: 'admin', secret: true },
      schema: { params: IdParams, response: { 200: envelopeOf(RotatedToken) } },
    },
    async (request) => {
      const nodes = request.diScope.cradle.nodes;
      const { node, token, previousTokenValidUntil } = await nodes.rotateToken(request.params.id);
      await audit(
        request,
        'rotate_token',
        node,
        previousTokenValidUntil ? `previous token valid until ${previousTokenValidUntil.toISOString()}` : '',
      );
      return ok({
        newToken: token,
        node: await nodes.view(node),
        token,
        previousTokenValidUntil: previousTokenValidUntil?.toISOString() ?? null,
      });
    },
  );

  await app.register(heartbeatRoutes);
}
