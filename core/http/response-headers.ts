import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The response carries a secret (a token, a key, an enrollment code): never stored by a cache. */
    secret?: boolean;
  }
}

/**
 * Headers every response carries. Set on the raw response, so they reach replies written by
 * Fastify (errors and 404s included) and streams written straight to the socket (downloads,
 * event streams) alike: Node merges them into the status line's headers.
 */
export const responseHeaders = fp(
  async function responseHeaders(app: FastifyInstance) {
    app.addHook('onRequest', async function baseHeaders(request: FastifyRequest, reply: FastifyReply) {
      reply.raw.setHeader('X-Content-Type-Options', 'nosniff');
      // Agent routes hand out task specifications (database and storage credentials): never cached either.
      const { secret, access } = request.routeOptions.config;
      if (secret === true || access === 'agent') reply.raw.setHeader('Cache-Control', 'no-store');
    });
  },
  { name: 'backplane-response-headers' },
);
