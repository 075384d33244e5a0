import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, rawResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { principalName } from '../../auth/principal.ts';
import { VERSION } from '../../engine/index.ts';
import type { Node } from '../../db/entities/node.ts';
import type { IssuedInstaller } from './install-service.ts';
import { installOptions, storedOptions, type InstallOptions } from './install-options.ts';
import {
  ENROLLMENT_PLACEHOLDER,
  renderCompose,
  renderInstallScript,
  shQuote,
  type InstallerInput,
} from './installer-script.ts';
import { EnrollInput, EnrollReply } from '../../agent-protocol/wire.ts';
import {
  DEFAULT_TTL_MINUTES,
  InstallPreviewQuery,
  InstallTokenCreated,
  InstallTokenInput,
  InstallTokenParams,
} from './install-schemas.ts';

/** The URL agents reach the master at: BACKPLANE_EXTERNAL_URL, or the request's own origin. */
function masterUrl(request: FastifyRequest): string {
  return request.diScope.cradle.config.externalUrl ?? `${request.protocol}://${request.host}`;
}

/** The renderer's input for an installer: the agent's master URL is the installer's own when it names one. */
function installerInput(
  request: FastifyRequest,
  node: Pick<Node, 'name'>,
  options: InstallOptions,
  enrollCode: string,
  enrollExpiresAt: Date | null,
): InstallerInput {
  return {
    masterUrl: options.agentMasterUrl || masterUrl(request),
    enrollCode,
    nodeName: node.name,
    enrollExpiresAt,
    options,
  };
}

function issuedInput(request: FastifyRequest, issued: IssuedInstaller): InstallerInput {
  return installerInput(request, issued.node, storedOptions(issued.row), issued.enrollCode, issued.enrollExpiresAt);
}

/** Headers for a script on its way through proxies and CDNs: plain text, never sniffed or cached. */
function asScript(reply: FastifyReply): FastifyReply {
  return reply
    .type('text/plain; charset=utf-8')
    .header('content-disposition', 'inline; filename="backplane-agent-install.sh"');
}

function asCompose(reply: FastifyReply): FastifyReply {
  return reply
    .type('application/yaml; charset=utf-8')
    .header('content-disposition', 'attachment; filename="backplane-agent-compose.yml"');
}

/**
 * One-time agent installers. The install token travels in the URL (the request logger redacts
 * `/install/<token>`); it is never audited or logged. The script served from the public URL
 * carries a one-time enrollment code, never the node's long-lived token.
 */
export async function installRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const audit = (
    request: FastifyRequest,
    action: string,
    node: Pick<Node, 'id' | 'name'>,
    detail = '',
    username?: string,
  ) =>
    request.diScope.cradle.audit.record(
      { ...auditActor(request), username },
      { category: 'node', action, targetType: 'node', targetId: node.id, targetName: node.name, detail },
    );

  app.post(
    '/api/nodes/:id/install-tokens',
    {
      config: { access: 'admin', secret: true },
      // No body at all means the defaults (it reaches validation as null).
      schema: {
        params: IdParams,
        body: Type.Union([InstallTokenInput, Type.Null()]),
        response: { 200: envelopeOf(InstallTokenCreated) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      if (body.ttlMinutes !== undefined && body.ttlSeconds !== undefined && body.ttlSeconds !== 0) {
        throw new AppError('INVALID_INPUT', {
          details: [{ path: 'body/ttlSeconds', message: 'give ttlMinutes or ttlSeconds, not both' }],
        });
      }
      const ttlSeconds = body.ttlSeconds || (body.ttlMinutes ?? DEFAULT_TTL_MINUTES) * 60;
      const options = installOptions(body, VERSION, 'body');
      const issued = await request.diScope.cradle.installs.create(
        request.params.id,
        ttlSeconds,
        options,
        principalName(request.principal),
      );
      const { node, token, row } = issued;
      await audit(
        request,
        'install_token',
        node,
        `${row.mode}/${row.arch}, agent ${row.agentVersion}, expires ${row.expiresAt.toISOString()}`,
      );
      const base = row.agentMasterUrl || masterUrl(request);
      // The primary URL is under /api (reverse proxies forward it); the other is the fallback.
      const url = `${base}/api/install/${token}`;
      const fallbackUrl = `${base}/install/${token}`;
      const curlOptions = [
        row.proxyUrl ? `--proxy ${shQuote(row.proxyUrl)} ` : '',
        row.caCertFile ? `--cacert ${shQuote(row.caCertFile)} ` : '',
      ].join('');
      return ok({
        installToken: token,
        expiresAt: row.expiresAt.toISOString(),
        url,
        fallbackUrl,
        // The script itself, for consoles whose proxy mangles /install: it carries the installer's first enrollment code.
        scriptBase64: Buffer.from(renderInstallScript(issuedInput(request, issued))).toString('base64'),
        composeUrl: `${url}/compose.yml`,
        fallbackComposeUrl: `${fallbackUrl}/compose.yml`,
        token,
        installUrl: fallbackUrl,
        command: `curl -fsSL ${curlOptions}${shQuote(fallbackUrl)} | sh`,
      });
    },
  );

  app.get(
    '/api/nodes/:id/install-script-preview',
    {
      config: { access: 'admin' },
      schema: {
        params: IdParams,
        querystring: InstallPreviewQuery,
        response: {
          200: rawResponse(
            'The install script, or with format=compose the Compose file; an enrollment-code placeholder instead of a code',
            ['text/x-shellscript', 'application/yaml'],
          ),
        },
      },
    },
    async (request, reply) => {
      const node = await request.diScope.cradle.installs.installable(request.params.id);
      const options = installOptions(request.query, VERSION, 'querystring');
      const input = installerInput(request, node, options, ENROLLMENT_PLACEHOLDER, null);
      if (request.query.format === 'compose') return asCompose(reply).send(renderCompose(input));
      return reply.type('text/x-shellscript; charset=utf-8').send(renderInstallScript(input));
    },
  );

  for (const prefix of ['/install', '/api/install']) {
    app.get(
      `${prefix}/:token`,
      {
        config: { access: 'public', secret: true },
        schema: {
          params: InstallTokenParams,
          response: { 200: rawResponse('The install script (once per token)', ['text/plain']) },
        },
      },
      async (request, reply) => {
        const issued = await request.diScope.cradle.installs.consume(request.params.token);
        await audit(request, 'install_consume', issued.node, 'script', 'installer');
        return asScript(reply).send(renderInstallScript(issuedInput(request, issued)));
      },
    );

    app.get(
      `${prefix}/:token/compose.yml`,
      {
        config: { access: 'public', secret: true },
        schema: {
          params: InstallTokenParams,
          response: { 200: rawResponse('The Compose file (once per token)', ['application/yaml']) },
        },
      },
      async (request, reply) => {
        const issued = await request.diScope.cradle.installs.consume(request.params.token);
        await audit(request, 'install_consume', issued.node, 'compose', 'installer');
        return asCompose(reply).send(renderCompose(issuedInput(request, issued)));
      },
    );
  }

  app.post(
    '/api/install/enroll',
    {
      config: { access: 'public', secret: true },
      schema: { body: EnrollInput, response: { 200: envelopeOf(EnrollReply) } },
    },
    async (request) => {
      const { node, token, previousTokenValidUntil } = await request.diScope.cradle.installs.enroll(request.body.code);
      await audit(
        request,
        'enroll',
        node,
        previousTokenValidUntil ? `previous token valid until ${previousTokenValidUntil.toISOString()}` : '',
        'installer',
      );
      return ok({ nodeId: node.id, nodeName: node.name, token, masterUrl: masterUrl(request) });
    },
  );
}
