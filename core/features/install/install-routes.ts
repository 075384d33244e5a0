import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { principalName } from '../../auth/principal.ts';
import type { Node } from '../../db/entities/node.ts';
import { ENROLLMENT_PLACEHOLDER, renderCompose, renderInstallScript } from './installer-script.ts';
import { EnrollInput, EnrollResult, InstallPreview, InstallTokenCreated, InstallTokenInput, InstallTokenParams } from './install-schemas.ts';

/** The URL agents reach the master at: BACKPLANE_EXTERNAL_URL, or the request's own origin. */
function masterUrl(request: FastifyRequest): string {
  return request.diScope.cradle.config.externalUrl ?? `${request.protocol}://${request.host}`;
}

/**
 * One-time agent installers. The install token travels in the URL (the request logger redacts
 * `/install/<token>`); it is never audited or logged. The script served from the public URL
 * carries a one-time enrollment code, never the node's long-lived token.
 */
export async function installRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (request: FastifyRequest, action: string, node: Pick<Node, 'id' | 'name'>, detail = '', username?: string) =>
    request.diScope.cradle.audit.record({ ...auditActor(request), username }, { category: 'node', action, targetType: 'node', targetId: node.id, targetName: node.name, detail });

  app.post('/api/nodes/:id/install-tokens', {
    config: { access: 'admin', secret: true },
    // No body at all means the defaults (it reaches validation as null).
    schema: { params: IdParams, body: Type.Union([InstallTokenInput, Type.Null()]), response: { 200: envelopeOf(InstallTokenCreated) } },
  }, async (request) => {
    const { node, token, expiresAt } = await request.diScope.cradle.installs.create(request.params.id, request.body?.ttlMinutes, principalName(request.principal));
    await audit(request, 'install_token', node, `expires ${expiresAt.toISOString()}`);
    const base = masterUrl(request);
    const installUrl = `${base}/install/${token}`;
    return ok({ token, expiresAt: expiresAt.toISOString(), installUrl, composeUrl: `${installUrl}/compose.yml`, command: `curl -fsSL '${installUrl}' | sh` });
  });

  app.get('/api/nodes/:id/install-script-preview', {
    config: { access: 'admin' },
    schema: { params: IdParams, response: { 200: envelopeOf(InstallPreview) } },
  }, async (request) => {
    const node = await request.diScope.cradle.nodes.get(request.params.id);
    const input = { masterUrl: masterUrl(request), enrollCode: ENROLLMENT_PLACEHOLDER, nodeName: node.name, enrollExpiresAt: null };
    return ok({ script: renderInstallScript(input), compose: renderCompose(input) });
  });

  for (const prefix of ['/install', '/api/install']) {
    app.get(`${prefix}/:token`, {
      config: { access: 'public', secret: true },
      schema: { params: InstallTokenParams },
    }, async (request, reply) => {
      const { node, enrollCode, enrollExpiresAt } = await request.diScope.cradle.installs.consume(request.params.token);
      void reply.type('text/x-shellscript; charset=utf-8');
      return renderInstallScript({ masterUrl: masterUrl(request), enrollCode, nodeName: node.name, enrollExpiresAt });
    });

    app.get(`${prefix}/:token/compose.yml`, {
      config: { access: 'public', secret: true },
      schema: { params: InstallTokenParams },
    }, async (request, reply) => {
      const { node, enrollCode, enrollExpiresAt } = await request.diScope.cradle.installs.consume(request.params.token);
      void reply.type('application/yaml; charset=utf-8');
      return renderCompose({ masterUrl: masterUrl(request), enrollCode, nodeName: node.name, enrollExpiresAt });
    });
  }

  app.post('/api/install/enroll', {
    config: { access: 'public', secret: true },
    schema: { body: EnrollInput, response: { 200: envelopeOf(EnrollResult) } },
  }, async (request) => {
    const { node, token, previousTokenValidUntil } = await request.diScope.cradle.installs.enroll(request.body.code);
    await audit(request, 'enroll', node, previousTokenValidUntil ? `previous token valid until ${previousTokenValidUntil.toISOString()}` : '', 'installer');
    return ok({ nodeId: node.id, nodeName: node.name, token, masterUrl: masterUrl(request) });
  });
}
