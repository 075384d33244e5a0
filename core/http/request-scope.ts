import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { asValue } from 'awilix';

/**
 * Gives every request its own EntityManager fork in `request.diScope`, so identity maps
 * never leak between requests; scoped services resolve against it.
 */
export const requestScope = fp(
  async function requestScope(app: FastifyInstance) {
    app.addHook('onRequest', async function attachEntityManager(request: FastifyRequest) {
      request.diScope.register({ em: asValue(app.diContainer.cradle.orm.em.fork()) });
    });
  },
  { name: 'backplane-request-scope', dependencies: ['@fastify/awilix'] },
);
