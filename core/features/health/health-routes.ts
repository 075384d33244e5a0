import type { FastifyInstance } from 'fastify';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { VERSION } from '../../version.ts';

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const live = async () => ok({ status: 'live', version: VERSION, uptime: Math.floor(process.uptime()), timestamp: new Date().toISOString() });
  app.get('/health', { config: { access: 'public' } }, live);
  app.get('/api/health', { config: { access: 'public' } }, live);

  const ready = async () => {
    try {
      await app.diContainer.cradle.orm.em.fork().getConnection().execute('select 1');
    } catch (err) {
      throw new AppError('NOT_READY', { message: 'The database is not reachable.', cause: err });
    }
    return ok({ status: 'ready', database: 'ok' });
  };
  app.get('/ready', { config: { access: 'public' } }, ready);
  app.get('/api/ready', { config: { access: 'public' } }, ready);

  app.get('/metrics', { config: { access: 'public' } }, async (_request, reply) => {
    return reply.type(app.metrics.contentType).send(await app.metrics.metrics());
  });
}
