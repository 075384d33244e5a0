import type { FastifyInstance } from 'fastify';
import type { Config } from './config/config.ts';
import { buildApp } from './app.ts';

const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts the master: builds the app, listens, and on SIGTERM/SIGINT stops accepting,
 * lets in-flight requests finish, closes the ORM, and exits.
 */
export async function startServer(config: Config): Promise<FastifyInstance> {
  const app = await buildApp(config);
  await app.listen({ host: config.host, port: config.port });
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      app.log.error('graceful shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return app;
}
