import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { SessionView, answerLogin, clientOf } from './auth-views.ts';
import { WebAuthnAssertion } from './account-security-schemas.ts';

/** Holds the `state` of the sign-in this browser started, so the callback can only finish that one. */
const STATE_COOKIE = 'backplane_oidc_state';
const STATE_COOKIE_PATH = '/api/auth/oidc';
/** The console's page that finishes a sign-in (`?code=`) or shows why it failed (`?error=`). */
const CONSOLE_PAGE = '/login/sso';

const NameParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

const ExchangeBody = Type.Object({
  code: Type.String({ minLength: 1, maxLength: 128 }),
  // The second step, as at POST /api/auth/login, when the account has a factor the provider did not assert.
  twoFactorCode: Type.Optional(Type.String({ maxLength: 32 })),
  webAuthnAssertion: Type.Optional(Type.Union([WebAuthnAssertion, Type.Null()])),
  trustedDeviceToken: Type.Optional(Type.String({ maxLength: 256 })),
  rememberDevice: Type.Optional(Type.Boolean()),
  trustedDeviceName: Type.Optional(Type.String({ maxLength: 128 })),
});

/** Where this master is reached from outside: the configured external URL, else what the request says. */
function baseUrl(request: FastifyRequest): string {
  return request.diScope.cradle.config.externalUrl ?? `${request.protocol}://${request.host}`;
}

/** The redirect URI registered at the provider: `<external URL>/api/auth/oidc/<name>/callback`. */
export function redirectUriOf(base: string, name: string): string {
  return `${base}/api/auth/oidc/${encodeURIComponent(name)}/callback`;
}

/** Sends the browser to the console's page, with the one-time code or the error's code. */
function toConsole(request: FastifyRequest, reply: FastifyReply, query: { code: string } | { error: string }) {
  const base = request.diScope.cradle.config.externalUrl ?? '';
  return reply.redirect(`${base}${CONSOLE_PAGE}?${new URLSearchParams(query).toString()}`, 302);
}

/** A sign-in that failed at the start or the callback: audited with why, and the console told the code. */
async function refused(request: FastifyRequest, reply: FastifyReply, provider: string, err: AppError) {
  await request.diScope.cradle.audit.record(
    { principal: null, clientIp: request.ip, username: '' },
    {
      category: 'auth',
      action: 'login_failed',
      targetType: 'user',
      detail: `sso=${provider}: ${err.code}: ${err.message}`,
    },
  );
  return toConsole(request, reply, { error: err.code });
}

/**
 * Single sign-on with OpenID Connect (docs/account-security.md): the list of providers for the
 * login page, the start and the callback of a sign-in (browser navigations: failures go back
 * to the console's page with the error's code), and the exchange of the one-time code for the
 * login's answer.
 */
export async function oidcRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/auth/oidc/providers',
    {
      config: { access: 'public' },
      schema: {
        response: { 200: envelopeOf(Type.Array(Type.Object({ name: Type.String(), displayName: Type.String() }))) },
      },
    },
    async (request) => ok(request.diScope.cradle.oidcLogins.providers()),
  );

  app.get(
    '/api/auth/oidc/:name/login',
    { config: { access: 'public', secret: true }, schema: { params: NameParams } },
    async (request, reply) => {
      const { oidcLogins } = request.diScope.cradle;
      const provider = oidcLogins.provider(request.params.name);
      try {
        const { location, state } = await oidcLogins.start(provider, redirectUriOf(baseUrl(request), provider.name));
        void reply.setCookie(STATE_COOKIE, state, {
          httpOnly: true,
          // Lax: the provider's redirect back is a top-level navigation from its site, which Lax lets through.
          sameSite: 'lax',
          path: STATE_COOKIE_PATH,
          secure: request.protocol === 'https',
          maxAge: 10 * 60,
        });
        return reply.redirect(location, 302);
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return refused(request, reply, provider.name, err);
      }
    },
  );

  app.get(
    '/api/auth/oidc/:name/callback',
    { config: { access: 'public', secret: true }, schema: { params: NameParams } },
    async (request, reply) => {
      const { oidcLogins, audit } = request.diScope.cradle;
      const provider = oidcLogins.provider(request.params.name);
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      const browserState = request.cookies[STATE_COOKIE];
      // Used or not, the state is spent: the cookie goes.
      if (browserState !== undefined) void reply.clearCookie(STATE_COOKIE, { path: STATE_COOKIE_PATH });
      try {
        const { code, user, match, mfaAsserted, roleFrom } = await oidcLogins.finish(provider, query, browserState);
        await audit.record(
          { principal: null, clientIp: request.ip, username: user.username },
          {
            category: 'auth',
            action: 'sso_verified',
            targetType: 'user',
            targetId: user.id,
            targetName: user.username,
            detail: [`sso=${provider.name}`, `match=${match}`, mfaAsserted ? 'provider_mfa' : '']
              .filter(Boolean)
              .join(', '),
          },
        );
        if (match === 'provisioned')
          await audit.record(
            { principal: null, clientIp: request.ip, username: user.username },
            {
              category: 'user',
              action: 'create',
              targetType: 'user',
              targetId: user.id,
              targetName: user.username,
              detail: `provisioned by sso=${provider.name}, role=${user.role}`,
            },
          );
        if (roleFrom !== undefined)
          await audit.record(
            { principal: null, clientIp: request.ip, username: user.username },
            {
              category: 'user',
              action: 'update',
              targetType: 'user',
              targetId: user.id,
              targetName: user.username,
              detail: `role ${roleFrom} -> ${user.role} by sso=${provider.name}`,
            },
          );
        return toConsole(request, reply, { code });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        return refused(request, reply, provider.name, err);
      }
    },
  );

  app.post(
    '/api/auth/oidc/exchange',
    {
      config: { access: 'public', secret: true },
      schema: { body: ExchangeBody, response: { 200: envelopeOf(SessionView) } },
    },
    async (request, reply) => {
      const { oidcLogins, loginLimiter, audit } = request.diScope.cradle;
      const body = request.body;
      const client = clientOf(request, body);
      try {
        // The code carries 256 random bits; the budget per address keeps a flood of guesses cheap to refuse.
        await loginLimiter.attempt(request.ip, undefined);
        const { session, provider } = await oidcLogins.exchange(
          { ...body, ...(client.trustedDeviceToken ? { trustedDeviceToken: client.trustedDeviceToken } : {}) },
          client,
        );
        return await answerLogin(request, reply, session, 'login_success', `sso=${provider}`);
      } catch (err) {
        if (err instanceof AppError) {
          const action =
            err.code === 'AUTH_RATE_LIMITED'
              ? 'login_rejected'
              : err.code === 'AUTH_2FA_REQUIRED'
                ? 'two_factor_required'
                : 'login_failed';
          await audit.record(
            { principal: null, clientIp: request.ip, username: '' },
            { category: 'auth', action, targetType: 'user', detail: `sso exchange: ${err.code}` },
          );
        }
        throw err;
      }
    },
  );
}
