import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { userIdOf, sessionIdOf } from '../../http/request-helpers.ts';
import { auditActor } from '../../events/audit-actor.ts';
import { Username, Password } from '../users/user-schemas.ts';
import { UserView, toUserView } from '../users/user-view.ts';
import { factorSummary } from '../../auth/mfa/factor-summary.ts';
import { revokeSessionOfToken } from '../../auth/sessions.ts';
import type { Session } from './auth-service.ts';
import { SessionView, answerLogin, clientOf, clearTrustedDeviceCookie } from './auth-views.ts';
import { WebAuthnAssertion } from './account-security-schemas.ts';

const LoginBody = Type.Object({
  // Both required, except for a passwordless passkey login (an assertion and no password).
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  password: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  twoFactorCode: Type.Optional(Type.String({ maxLength: 32 })),
  webAuthnAssertion: Type.Optional(Type.Union([WebAuthnAssertion, Type.Null()])),
  trustedDeviceToken: Type.Optional(Type.String({ maxLength: 256 })),
  rememberDevice: Type.Optional(Type.Boolean()),
  trustedDeviceName: Type.Optional(Type.String({ maxLength: 128 })),
  /** The login-device token of an earlier login, for clients without cookies (docs/account-security.md#the-cap-on-failed-sign-ins). */
  deviceToken: Type.Optional(Type.String({ maxLength: 256 })),
});

export async function authRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/auth/setup/status',
    {
      config: { access: 'public' },
      schema: { response: { 200: envelopeOf(Type.Object({ initialized: Type.Boolean() })) } },
    },
    async (request) => ok({ initialized: await request.diScope.cradle.auth.initialized() }),
  );

  app.post(
    '/api/auth/setup',
    {
      config: { access: 'public', secret: true },
      schema: {
        body: Type.Object({
          username: Username,
          password: Password,
          displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
        }),
        response: { 200: envelopeOf(SessionView) },
      },
    },
    async (request, reply) => {
      const { auth, loginLimiter, audit } = request.diScope.cradle;
      let session: Session;
      try {
        await loginLimiter.attempt(request.ip, undefined);
        session = await auth.setup(request.body, clientOf(request));
      } catch (err) {
        // A setup attempt on an initialised installation is a probe worth recording, like a failed login.
        if (err instanceof AppError) {
          const action = err.code === 'AUTH_RATE_LIMITED' ? 'setup_rejected' : 'setup_failed';
          await audit.record(
            { principal: null, clientIp: request.ip, username: request.body.username },
            { category: 'auth', action, targetType: 'user', targetName: request.body.username, detail: err.code },
          );
        }
        throw err;
      }
      return answerLogin(request, reply, session, 'setup');
    },
  );

  app.post(
    '/api/auth/login',
    {
      config: { access: 'public', secret: true },
      schema: { body: LoginBody, response: { 200: envelopeOf(SessionView) } },
    },
    async (request, reply) => {
      const { auth, audit, accountLockout } = request.diScope.cradle;
      const body = request.body;
      try {
        // The trusted-device token from the body, else its cookie: a second factor, and a mark of a trusted client.
        const client = clientOf(request, body);
        const input = {
          ...body,
          ...(client.trustedDeviceToken ? { trustedDeviceToken: client.trustedDeviceToken } : {}),
        };
        return await answerLogin(request, reply, await auth.login(input, client));
      } catch (err) {
        // A malformed request is not a login attempt (the schema refuses most before they get here).
        if (err instanceof AppError && err.code !== 'INVALID_INPUT') {
          const action =
            err.code === 'AUTH_RATE_LIMITED' || err.code === 'AUTH_ACCOUNT_LOCKED'
              ? 'login_rejected'
              : err.code === 'AUTH_2FA_REQUIRED'
                ? 'two_factor_required'
                : 'login_failed';
          // A counted failure says which in its run of failures it was (AccountLockout.lastFailure).
          const failure = accountLockout.lastFailure;
          const detail = failure === undefined ? err.code : `${err.code}, failure=${failure}`;
          await audit.record(
            { principal: null, clientIp: request.ip, username: body.username ?? '' },
            { category: 'auth', action, targetType: 'user', targetName: body.username ?? '', detail },
          );
        }
        throw err;
      }
    },
  );

  app.post(
    '/api/auth/logout',
    {
      config: { access: 'auth', interactiveOnly: true, enrolment: true },
      schema: { response: { 200: envelopeOf(Type.Object({ loggedOut: Type.Boolean() })) } },
    },
    async (request) => {
      const { em, audit, clock } = request.diScope.cradle;
      // The session of this token ends on every master: the guard reads its row on every request.
      const sessionId = sessionIdOf(request);
      if (sessionId) await revokeSessionOfToken(em, sessionId, clock.now());
      await audit.record(auditActor(request), { category: 'auth', action: 'logout' });
      return ok({ loggedOut: true });
    },
  );

  app.get(
    '/api/auth/profile',
    {
      config: { access: 'auth', interactiveOnly: true, enrolment: true },
      schema: { response: { 200: envelopeOf(UserView) } },
    },
    async (request) => {
      const { users, em } = request.diScope.cradle;
      const user = await users.viewFields(userIdOf(request));
      return ok(toUserView(user, await factorSummary(em, user)));
    },
  );

  app.put(
    '/api/auth/password',
    {
      config: { access: 'auth', interactiveOnly: true, secret: true },
      schema: {
        body: Type.Object({ oldPassword: Type.String({ minLength: 1, maxLength: 128 }), newPassword: Password }),
        response: { 200: envelopeOf(Type.Object({ changed: Type.Boolean() })) },
      },
    },
    async (request, reply) => {
      const { auth, audit } = request.diScope.cradle;
      const user = await auth.changePassword(
        userIdOf(request),
        sessionIdOf(request),
        request.body.oldPassword,
        request.body.newPassword,
      );
      clearTrustedDeviceCookie(request, reply);
      await audit.record(auditActor(request), {
        category: 'auth',
        action: 'change_password',
        targetType: 'user',
        targetId: user.id,
        targetName: user.username,
      });
      return ok({ changed: true });
    },
  );
}
