import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import { fastifyAwilixPlugin, type FastifyAwilixOptions } from '@fastify/awilix';
import { fastifySSE } from '@fastify/sse';
import fastifyCookie from '@fastify/cookie';
import { requestScope } from './request-scope.ts';
import { registerErrorHandling } from './error-handler.ts';
import { inputGuard } from './input-guard.ts';
import { responseHeaders } from './response-headers.ts';
import { openapi } from './openapi.ts';
import { cors } from './cors.ts';

export interface HttpStackOptions {
  container: FastifyAwilixOptions['container'];
  corsOrigins: string[];
  /** The access guard (core/auth/guard.ts), which authenticates with the container's services. */
  accessGuard: FastifyPluginAsync;
}

/**
 * What every route stands on, in the order it must be registered: response headers, the
 * container's request scopes, the error envelope, CORS, the OpenAPI description, the access
 * guard, the input guard, event streams and cookies.
 */
export const httpStack = fp(
  async function httpStack(app: FastifyInstance, opts: HttpStackOptions) {
    // First, so every response carries them, even one refused by a later hook.
    await app.register(responseHeaders);
    await app.register(fastifyAwilixPlugin, {
      container: opts.container,
      disposeOnClose: true,
      disposeOnResponse: true,
      strictBooleanEnforced: true,
    });
    registerErrorHandling(app);
    await app.register(requestScope);
    // Before the guard: a preflight is answered in onRequest, before authentication (core/http/cors.ts).
    await app.register(cors, { origins: opts.corsOrigins });
    // Before the guard and the routes: it labels the docs' own routes and sees every route as it is added.
    await app.register(openapi);
    await app.register(opts.accessGuard);
    await app.register(inputGuard);
    // Contract: a heartbeat comment every 25 s on every stream.
    await app.register(fastifySSE, { heartbeatInterval: 25_000 });
    // Read by the login (the trusted-device cookie); no signing: the cookie holds a random token.
    await app.register(fastifyCookie);
  },
  { name: 'backplane-http-stack' },
);
