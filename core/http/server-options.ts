import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config/config.ts';
import { clientErrorHandler, frameworkErrors } from './client-errors.ts';
import { loggerOptions } from './logging.ts';

/** The Fastify instance's own settings: logging, proxies, body limit and how it closes. */
export function serverOptions(config: Config, logLevel: string): FastifyServerOptions {
  return {
    logger: loggerOptions(logLevel),
    trustProxy: config.trustedProxies,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Event streams never go idle: without this a shutdown would wait for every open dashboard.
    forceCloseConnections: true,
    // Refusals before a route is found answer in the envelope too.
    clientErrorHandler,
    frameworkErrors,
  };
}
