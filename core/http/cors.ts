import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import fastifyCors from '@fastify/cors';

/** Headers a cross-origin script may read: the list total and a download's file name. */
export const CORS_EXPOSED_HEADERS = ['X-Total-Count', 'Content-Disposition'];

/**
 * Cross-origin access for the browsers of the origins BACKPLANE_CORS_ORIGINS names (exact
 * strings, checked when the config loads); with none named the plugin is not registered at all,
 * so responses carry no CORS header and preflights find no route (the default: the console is
 * served from the master's own origin).
 *
 * Registered before the access guard: @fastify/cors answers a preflight in its onRequest hook,
 * before authentication (a browser never sends credentials with a preflight), and its catch-all
 * `OPTIONS *` route is added before the guard starts checking labels. A preflight from another
 * origin gets no CORS header and falls through to 404.
 */
export const cors = fp(
  async function cors(app: FastifyInstance, opts: { origins: string[] }) {
    if (opts.origins.length === 0) return;
    const allowed = new Set(opts.origins);
    await app.register(fastifyCors, {
      // A function, not the list: with a list, @fastify/cors still sends the credentials and
      // exposed-headers headers to origins it refuses; `false` sends none.
      origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin)),
      credentials: true,
      exposedHeaders: CORS_EXPOSED_HEADERS,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      maxAge: 600,
    });
  },
  { name: 'backplane-cors' },
);
