import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, wholeListQuery } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { setTotal, sessionIdOf, userIdOf } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { CreateUserBody, UpdateUserBody } from './user-schemas.ts';
import { UserView, toUserView } from './user-view.ts';
import { factorSummaries, factorSummary } from '../../auth/mfa/factor-summary.ts';

export async function userRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/users',
    {
      config: { access: 'admin' },
      schema: { querystring: Type.Object(wholeListQuery(1000)), response: { 200: envelopeOf(Type.Array(UserView)) } },
    },
    async (request, reply) => {
      const { users: service, em } = request.diScope.cradle;
      const [users, total] = await service.list(request.query);
      setTotal(reply, total);
      const factors = await factorSummaries(em, users);
      return ok(users.map((u) => toUserView(u, factors.get(u.id)!)));
    },
  );

  app.post(
    '/api/users',
    {
      config: { access: 'admin' },
      schema: { body: CreateUserBody, response: { 200: envelopeOf(UserView) } },
    },
    async (request) => {
      const { users, audit, em } = request.diScope.cradle;
      const user = await users.create(request.body);
      await audit.record(auditActor(request), {
        category: 'user',
        action: 'create',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
        detail: `role=${user.role}`,
      });
      return ok(toUserView(user, await factorSummary(em, user)));
    },
  );

  app.put(
    '/api/users/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, body: UpdateUserBody, response: { 200: envelopeOf(UserView) } },
    },
    async (request) => {
      const { users, audit, em } = request.diScope.cradle;
      const p = request.principal;
      const user = await users.update(request.params.id, request.body, {
        userId: p?.kind === 'user' ? p.userId : null,
        sessionId: sessionIdOf(request),
      });
      // Only fields the schema knows (unknown keys are ignored by the update and must not appear in
      // the audit trail as changes); an empty password is no change; a password by name only.
      const changed = Object.entries(request.body)
        .filter(([k, v]) => k in UpdateUserBody.properties && !(k === 'password' && v === ''))
        .map(([k, v]) => (k === 'password' ? 'password' : `${k}=${String(v)}`));
      await audit.record(auditActor(request), {
        category: 'user',
        action: 'update',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
        detail: changed.join(', '),
      });
      return ok(toUserView(user, await factorSummary(em, user)));
    },
  );

  app.delete(
    '/api/users/:id',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ deleted: Type.Boolean() })) } },
    },
    async (request) => {
      const { users, audit } = request.diScope.cradle;
      const actingId = request.principal?.kind === 'user' ? request.principal.userId : null;
      const user = await users.delete(request.params.id, actingId);
      await audit.record(auditActor(request), {
        category: 'user',
        action: 'delete',
        targetType: 'user',
        targetId: request.params.id,
        targetName: user.username,
      });
      return ok({ deleted: true });
    },
  );

  app.post(
    '/api/users/:id/2fa/reset',
    {
      config: { access: 'admin', interactiveOnly: true },
      schema: { params: IdParams, response: { 200: envelopeOf(UserView) } },
    },
    async (request) => {
      const { accountSecurity, audit, em } = request.diScope.cradle;
      const user = await accountSecurity.adminReset(request.params.id, userIdOf(request));
      await audit.record(auditActor(request), {
        category: 'user',
        action: 'two_factor_reset',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
      });
      return ok(toUserView(user, await factorSummary(em, user)));
    },
  );

  app.post(
    '/api/users/:id/unlock',
    {
      config: { access: 'admin' },
      schema: { params: IdParams, response: { 200: envelopeOf(UserView) } },
    },
    async (request) => {
      const { users, accountLockout, audit, em } = request.diScope.cradle;
      await users.get(request.params.id);
      const wasLocked = await accountLockout.unlock(request.params.id);
      const user = await users.viewFields(request.params.id);
      await audit.record(auditActor(request), {
        category: 'user',
        action: 'account_unlocked',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
        detail: wasLocked ? 'by admin' : 'by admin, was not locked',
      });
      return ok(toUserView(user, await factorSummary(em, user)));
    },
  );
}
