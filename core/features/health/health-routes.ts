import type { FastifyInstance } from 'fastify';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { VERSION } from '../../config/version.ts';

/** The reference's probe fields: status, version, uptime in seconds, the time of the answer. */
const probe = (status: string) => ({ status, version: VERSION, uptime: Math.floor(process.uptime()), timestamp: new Date().toISOString() });

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const live = async () => ok(probe('live'));
  app.get('/health', { config: { access: 'public' } }, live);
  app.get('/api/health', { config: { access: 'public' } }, live);

  const ready = async () => {
    // checkConnection(), not execute(): execute() silently reconnects a closed ORM, so a database
    // that was shut down would still report ready (and be reopened by the probe).
    const check = await app.diContainer.cradle.orm.checkConnection();
    if (!check.ok) throw new AppError('NOT_READY', { message: 'The database is not reachable.', cause: check.error ?? check.reason });
    return ok({ ...probe('ready'), checks: { database: 'ok' }, database: 'ok' });
  };
  app.get('/ready', { config: { access: 'public' } }, ready);
  app.get('/api/ready', { config: { access: 'public' } }, ready);

  app.get('/metrics', { config: { access: 'public' } }, async (_request, reply) => {
    return reply.type(app.metrics.contentType).send(await app.metrics.metrics());
  });
}
