import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, wholeListQuery } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { principalName } from '../../auth/principal.ts';
import { RoleSchema } from '../users/user-schemas.ts';
import { ApiKeyView, toApiKeyView } from './api-key-service.ts';

export async function apiKeyRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/api-keys',
    {
      config: { access: 'admin' },
      schema: { querystring: Type.Object(wholeListQuery(1000)), response: { 200: envelopeOf(Type.Array(ApiKeyView)) } },
    },
    async (request, reply) => {
      const [keys, total] = await request.diScope.cradle.apiKeys.list(request.query);
      setTotal(reply, total);
      return ok(keys.map((k) => toApiKeyView(k)));
    },
  );

  app.post(
    '/api/api-keys',
    {
      config: { access: 'admin', secret: true },
      schema: {
        body: Type.Object({
          name: Type.String({ minLength: 1, maxLength: 128 }),
          role: RoleSchema,
          // 0 or absent: never expires. At most ten years.
          ttlHours: Type.Optional(Type.Integer({ minimum: 0, maximum: 87600 })),
        }),
        response: { 200: envelopeOf(Type.Object({ apiKey: ApiKeyView, plainKey: Type.String() })) },
      },
    },
    async (request) => {
      const { apiKeys, audit } = request.diScope.cradle;
      const p = request.principal;
      const creator = {
        id: p?.kind === 'user' ? p.userId : p?.kind === 'apiKey' ? p.createdById : null,
        name: principalName(p),
      };
      const { key, plainKey } = await apiKeys.create(request.body, creator);
      await audit.record(auditActor(request), {
        category: 'api_key',
        action: 'create',
        targetType: 'api_key',
        targetId: key.id,
        targetName: key.name,
        detail: `role=${key.role}`,
      });
      return ok({ apiKey: toApiKeyView(key), plainKey });
    },
  );

  app.put(
    '/api/api-keys/:id/toggle',
    {
      config: { access: 'admin' },
      schema: {
        params: IdParams,
        // No body at all reaches validation as null (Type.Optional is meaningless at the root): it flips the state.
        body: Type.Union([Type.Object({ disabled: Type.Optional(Type.Boolean()) }), Type.Null()]),
        response: { 200: envelopeOf(ApiKeyView) },
      },
    },
    async (request) => {
      const { apiKeys, audit } = request.diScope.cradle;
      const key = await apiKeys.toggle(request.params.id, request.body?.disabled);
      await audit.record(auditActor(request), {
        category: 'api_key',
        action: key.disabled ? 'disable' : 'enable',
        targetType: 'api_key',
        targetId: key.id,
        targetName: key.name,
      });
      return ok(toApiKeyView(key));
    },
  );

  app.delete(
    '/api/api-keys/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ revoked: Type.Boolean() })) } },
    },
    async (request) => {
      const { apiKeys, audit } = request.diScope.cradle;
      const key = await apiKeys.revoke(request.params.id);
      await audit.record(auditActor(request), {
        category: 'api_key',
        action: 'revoke',
        targetType: 'api_key',
        targetId: request.params.id,
        targetName: key.name,
      });
      return ok({ revoked: true });
    },
  );
}
