import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, pageQuery } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { setTotal } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { roleAllows } from '../../auth/roles.ts';
import { optionDocs } from '../../plugin-host/provider-config.ts';
import { providerFailure, trimReason } from '../../storage/target-opener.ts';
import type { StorageTarget } from '../../db/entities/storage-target.ts';
import {
  TargetInput,
  TargetTestInput,
  TargetUpdate,
  TargetSummary,
  TargetDetail,
  TestResultView,
} from './storage-target-schemas.ts';
import { toTargetSummary, toTargetDetail } from './storage-target-view.ts';
import { AuthUrlBody, GOOGLE_DRIVE } from './oauth-flow.ts';
import { oauthCallbackPage } from './oauth-callback-page.ts';

/** The base URL browsers and agents reach the master at: configured, or from the request. */
function baseUrl(request: FastifyRequest): string {
  const configured = request.diScope.cradle.config.externalUrl;
  if (configured) return configured;
  const origin = request.headers.origin;
  if (typeof origin === 'string' && /^https?:\/\/[^/]+$/.test(origin)) return origin;
  return `${request.protocol}://${request.host}`;
}

function actorId(request: FastifyRequest): number | null {
  const p = request.principal;
  return p?.kind === 'user' ? p.userId : p?.kind === 'apiKey' ? p.createdById : null;
}

export async function storageTargetRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const detail = (request: FastifyRequest, t: StorageTarget) => {
    const { storageTargets } = request.diScope.cradle;
    return toTargetDetail(t, request.diScope.cradle.storageTypes.get(t.type), storageTargets.storedSecretKeys(t));
  };

  app.get(
    '/api/storage-targets',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object(pageQuery(200, 1000)),
        response: { 200: envelopeOf(Type.Array(TargetSummary)) },
      },
    },
    async (request, reply) => {
      const [targets, total] = await request.diScope.cradle.storageTargets.list(request.query);
      setTotal(reply, total);
      return ok(targets.map(toTargetSummary));
    },
  );

  app.post(
    '/api/storage-targets',
    {
      config: { access: 'operator' },
      schema: { body: TargetInput, response: { 200: envelopeOf(TargetDetail) } },
    },
    async (request) => {
      const { storageTargets, audit } = request.diScope.cradle;
      const target = await storageTargets.create(request.body);
      await audit.record(auditActor(request), {
        category: 'storage_target',
        action: 'create',
        targetType: 'storage_target',
        targetId: target.id,
        targetName: target.name,
        detail: `type=${target.type}`,
      });
      return ok(detail(request, target));
    },
  );

  app.post(
    '/api/storage-targets/test',
    {
      config: { access: 'operator' },
      schema: { body: TargetTestInput, response: { 200: envelopeOf(TestResultView) } },
    },
    async (request) => ok(await request.diScope.cradle.storageTargets.testUnsaved(request.body)),
  );

  app.get(
    '/api/storage-targets/rclone/backends',
    {
      config: { access: 'auth' },
      schema: {
        response: {
          200: envelopeOf(
            Type.Array(
              Type.Object({
                name: Type.String(),
                description: Type.String(),
                options: Type.Array(
                  Type.Object({
                    key: Type.String(),
                    label: Type.String(),
                    required: Type.Boolean(),
                    isPassword: Type.Boolean(),
                    default: Type.Optional(Type.String()),
                    advanced: Type.Boolean(),
                  }),
                ),
              }),
            ),
          ),
        },
      },
    },
    async (request) => {
      const types = request.diScope.cradle.storageTypes
        .list()
        .filter((t) => t.family === 'rclone' || t.type === 'rclone');
      return ok(
        types
          .sort((a, b) => a.type.localeCompare(b.type))
          .map((t) => ({
            name: t.type,
            description: t.description ?? t.displayName,
            options: optionDocs(t).map((o) => ({
              key: o.name,
              label: o.help,
              required: o.required,
              isPassword: o.secret,
              default: o.default,
              advanced: o.advanced ?? false,
            })),
          })),
      );
    },
  );

  app.post(
    '/api/storage-targets/google-drive/auth-url',
    {
      config: { access: 'operator' },
      schema: {
        body: AuthUrlBody,
        response: {
          200: envelopeOf(
            Type.Object({
              authUrl: Type.String(),
              state: Type.String(),
              redirectUri: Type.String(),
              expiresAt: Type.String(),
            }),
          ),
        },
      },
    },
    async (request) =>
      ok(await request.diScope.cradle.storageOAuth.start(request.body, actorId(request), baseUrl(request))),
  );

  await oauthCallbackPage(fastify);

  const completeOAuth = async (request: FastifyRequest, state: string, code: string) => {
    const { storageOAuth, audit } = request.diScope.cradle;
    const target = await storageOAuth.complete(state, code);
    await audit.record(auditActor(request), {
      category: 'storage_target',
      action: 'authorize',
      targetType: 'storage_target',
      targetId: target.id,
      targetName: target.name,
      detail: 'google_drive oauth',
    });
    return target;
  };

  app.post(
    '/api/storage-targets/google-drive/complete',
    {
      config: { access: 'operator' },
      schema: {
        body: Type.Object({
          state: Type.String({ minLength: 1, maxLength: 256 }),
          code: Type.String({ minLength: 1, maxLength: 2048 }),
        }),
        response: { 200: envelopeOf(TargetDetail) },
      },
    },
    async (request) => ok(detail(request, await completeOAuth(request, request.body.state, request.body.code))),
  );

  app.get(
    '/api/storage-targets/google-drive/callback',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object({
          state: Type.Optional(Type.String({ maxLength: 256 })),
          code: Type.Optional(Type.String({ maxLength: 2048 })),
          error: Type.Optional(Type.String({ maxLength: 256 })),
        }),
        response: {
          200: envelopeOf(
            Type.Object({ success: Type.Boolean(), message: Type.String(), target: Type.Optional(TargetDetail) }),
          ),
        },
      },
    },
    async (request) => {
      // Completing creates a target: the same role as every other storage mutation.
      const p = request.principal;
      if ((p?.kind === 'user' || p?.kind === 'apiKey') && !roleAllows(p.role, 'operator'))
        throw new AppError('AUTH_FORBIDDEN');
      const { state, code, error } = request.query;
      if (error) return ok({ success: false, message: `Google reported: ${error}` });
      if (!state || !code)
        throw new AppError('STORAGE_GOOGLE_OAUTH_STATE_INVALID', { message: 'The callback needs state and code.' });
      const target = await completeOAuth(request, state, code);
      return ok({ success: true, message: 'Google Drive is connected.', target: detail(request, target) });
    },
  );

  app.get(
    '/api/storage-targets/:id',
    {
      config: { access: 'auth' },
      schema: { params: IdParams, response: { 200: envelopeOf(TargetDetail) } },
    },
    async (request) => ok(detail(request, await request.diScope.cradle.storageTargets.get(request.params.id))),
  );

  app.put(
    '/api/storage-targets/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, body: TargetUpdate, response: { 200: envelopeOf(TargetDetail) } },
    },
    async (request) => {
      const { storageTargets, audit } = request.diScope.cradle;
      const target = await storageTargets.update(request.params.id, request.body);
      await audit.record(auditActor(request), {
        category: 'storage_target',
        action: 'update',
        targetType: 'storage_target',
        targetId: target.id,
        targetName: target.name,
        detail: Object.keys(request.body).join(', '),
      });
      return ok(detail(request, target));
    },
  );

  app.delete(
    '/api/storage-targets/:id',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const { storageTargets, audit } = request.diScope.cradle;
      const target = await storageTargets.delete(request.params.id);
      await audit.record(auditActor(request), {
        category: 'storage_target',
        action: 'delete',
        targetType: 'storage_target',
        targetId: request.params.id,
        targetName: target.name,
      });
      return ok({ deleted: true });
    },
  );

  app.put(
    '/api/storage-targets/:id/star',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(TargetSummary) } },
    },
    async (request) => ok(toTargetSummary(await request.diScope.cradle.storageTargets.toggleStar(request.params.id))),
  );

  app.post(
    '/api/storage-targets/:id/test',
    {
      config: { access: 'operator' },
      schema: { params: IdParams, response: { 200: envelopeOf(TestResultView) } },
    },
    async (request) => {
      const { target, result } = await request.diScope.cradle.storageTargets.testSaved(request.params.id);
      await request.diScope.cradle.audit.record(auditActor(request), {
        category: 'storage_target',
        action: 'test',
        targetType: 'storage_target',
        targetId: target.id,
        targetName: target.name,
        detail: result.success ? 'success' : 'failed',
      });
      if (!result.success) throw new AppError('STORAGE_TARGET_TEST_FAILED', { message: result.message });
      return ok(result);
    },
  );

  app.get(
    '/api/storage-targets/:id/usage',
    {
      config: { access: 'auth' },
      schema: {
        params: IdParams,
        response: {
          200: envelopeOf(
            Type.Object({
              targetId: Type.Integer(),
              targetName: Type.String(),
              recordCount: Type.Integer(),
              totalSize: Type.Number(),
              quotaBytes: Type.Number(),
              diskUsage: Type.Optional(
                Type.Object({
                  total: Type.Optional(Type.Number()),
                  used: Type.Optional(Type.Number()),
                  free: Type.Optional(Type.Number()),
                }),
              ),
            }),
          ),
        },
      },
    },
    async (request) => ok(await request.diScope.cradle.storageTargets.usage(request.params.id)),
  );

  app.get(
    '/api/storage-targets/:id/google-drive/profile',
    {
      config: { access: 'auth' },
      schema: {
        params: IdParams,
        response: {
          200: envelopeOf(Type.Object({ email: Type.String(), name: Type.String(), picture: Type.String() })),
        },
      },
    },
    async (request) => {
      const { storageTargets } = request.diScope.cradle;
      const target = await storageTargets.get(request.params.id);
      if (target.type !== GOOGLE_DRIVE) throw new AppError('STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH');
      const type = storageTargets.opener.type(GOOGLE_DRIVE);
      if (!type.oauth?.profile)
        throw new AppError('STORAGE_PROVIDER_UNSUPPORTED', { message: 'This Google Drive type cannot read profiles.' });
      try {
        return ok(await type.oauth.profile(storageTargets.opener.fullConfig(target), storageTargets.opener.deps()));
      } catch (err) {
        const mapped = providerFailure(err);
        if (mapped.code === 'STORAGE_PROVIDER_UNAVAILABLE') throw mapped;
        throw new AppError('STORAGE_GOOGLE_PROFILE_FAILED', {
          message: `The Google account profile could not be read: ${trimReason(err)}`,
        });
      }
    },
  );
}
