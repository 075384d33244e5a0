import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, Timestamp, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { sessionIdOf, setTotal, userIdOf } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { liveSessions, revokeSession, revokeUserSessions } from '../../auth/sessions.ts';
import type { UserSession } from '../../db/entities/login.ts';
import { deviceName } from './auth-service.ts';

/** The caller's own sessions: interactive only, like the other account routes. */
const OWN = { access: 'auth', interactiveOnly: true } as const;

const SessionRow = Type.Object({
  id: Type.Integer(),
  /** The browser and system, as read from the user agent ("Firefox on Linux"). */
  client: Type.String(),
  userAgent: Type.String(),
  /** The client address at sign-in. */
  address: Type.String(),
  createdAt: Timestamp,
  /** Updated at most once a minute. */
  lastUsedAt: Timestamp,
  expiresAt: Timestamp,
  /** The session this request was made with. */
  current: Type.Boolean(),
});

function sessionRow(s: UserSession, currentTokenId: string | undefined) {
  return {
    id: s.id,
    client: deviceName(s.userAgent),
    userAgent: s.userAgent,
    address: s.ip,
    createdAt: s.createdAt.toISOString(),
    lastUsedAt: s.lastUsedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    current: s.tokenId === currentTokenId,
  };
}

/**
 * The signed-in user's sessions (one per login: core/auth/sessions.ts): list them, end one, or end
 * every one but the current ("sign out everywhere else"). Ending a session ends it on every master.
 */
export async function sessionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/auth/sessions',
    { config: OWN, schema: { response: { 200: envelopeOf(Type.Array(SessionRow)) } } },
    async (request, reply) => {
      const { em, clock } = request.diScope.cradle;
      const rows = await liveSessions(em, userIdOf(request), clock.now());
      setTotal(reply, rows.length);
      return ok(rows.map((s) => sessionRow(s, sessionIdOf(request))));
    },
  );

  app.delete(
    '/api/auth/sessions/:id',
    {
      config: OWN,
      schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ revoked: Type.Boolean() })) } },
    },
    async (request) => {
      const { em, clock, audit } = request.diScope.cradle;
      // Another user's session, an ended one and one that never was answer alike.
      if (!(await revokeSession(em, userIdOf(request), request.params.id, clock.now())))
        throw new AppError('AUTH_SESSION_NOT_FOUND');
      await audit.record(auditActor(request), {
        category: 'auth',
        action: 'session_revoke',
        targetType: 'session',
        targetId: request.params.id,
      });
      return ok({ revoked: true });
    },
  );

  app.post(
    '/api/auth/sessions/revoke-others',
    { config: OWN, schema: { response: { 200: envelopeOf(Type.Object({ revoked: Type.Integer() })) } } },
    async (request) => {
      const { em, clock, audit } = request.diScope.cradle;
      const keep = sessionIdOf(request);
      // A principal of kind 'user' always carries its session id (the guard refuses tokens without one).
      if (!keep) throw new AppError('AUTH_UNAUTHORIZED');
      const revoked = await revokeUserSessions(em, userIdOf(request), clock.now(), keep);
      await audit.record(auditActor(request), {
        category: 'auth',
        action: 'session_revoke_others',
        detail: `revoked=${revoked}`,
      });
      return ok({ revoked });
    },
  );
}
