import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ok } from '../../http/envelope.ts';
import { envelopeOf, rawResponse, Timestamp } from '../../http/schemas.ts';
import { AppError } from '../../http/app-error.ts';
import { VERSION } from '../../engine/index.ts';

/** The reference's probe fields: status, version, uptime in seconds, the time of the answer. */
const probe = (status: string) => ({
  status,
  version: VERSION,
  uptime: Math.floor(process.uptime()),
  timestamp: new Date().toISOString(),
});

const Probe = { status: Type.String(), version: Type.String(), uptime: Type.Integer(), timestamp: Timestamp };
const Live = envelopeOf(Type.Object(Probe));
const Ready = envelopeOf(
  Type.Object({ ...Probe, checks: Type.Object({ database: Type.String() }), database: Type.String() }),
);

export async function healthRoutes(app: FastifyInstance): Promise<void> {
  const live = async () => ok(probe('live'));
  app.get('/health', { config: { access: 'public' }, schema: { response: { 200: Live } } }, live);
  app.get('/api/health', { config: { access: 'public' }, schema: { response: { 200: Live } } }, live);

  const ready = async () => {
    // checkConnection(), not execute(): execute() silently reconnects a closed ORM, so a database
    // that was shut down would still report ready (and be reopened by the probe).
    const check = await app.diContainer.cradle.orm.checkConnection();
    if (!check.ok)
      throw new AppError('NOT_READY', {
        message: 'The database is not reachable.',
        cause: check.error ?? check.reason,
      });
    return ok({ ...probe('ready'), checks: { database: 'ok' }, database: 'ok' });
  };
  app.get('/ready', { config: { access: 'public' }, schema: { response: { 200: Ready } } }, ready);
  app.get('/api/ready', { config: { access: 'public' }, schema: { response: { 200: Ready } } }, ready);

  // Prometheus' text format, a string: not serialised.
  app.get(
    '/metrics',
    {
      config: { access: 'public' },
      schema: { response: { 200: rawResponse('Prometheus metrics (text exposition format)', ['text/plain']) } },
    },
    async (_request, reply) => {
      return reply.type(app.metrics.contentType).send(await app.metrics.metrics());
    },
  );
}
