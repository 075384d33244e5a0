import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';
import { VERSION } from '../engine/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

/**
 * Prometheus metrics on a registry of this app's own (the global one would collide when
 * tests build several apps in one process). Routes are labelled by pattern, not raw URL,
 * so ids in paths cannot blow up cardinality.
 */
export const metricsPlugin = fp(
  async function metricsPlugin(app: FastifyInstance) {
    const registry = app.diContainer.cradle.metricsRegistry;
    collectDefaultMetrics({ register: registry });
    new Gauge({
      name: 'backplane_app_info',
      help: 'Backplane version (always 1)',
      labelNames: ['version'],
      registers: [registry],
    }).set({ version: VERSION }, 1);
    const requests = new Counter({
      name: 'backplane_http_requests_total',
      help: 'HTTP requests',
      labelNames: ['method', 'route', 'status_code'],
      registers: [registry],
    });
    const latency = new Histogram({
      name: 'backplane_http_request_duration_seconds',
      help: 'HTTP request latency',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    app.decorate('metrics', registry);

    app.addHook('onResponse', async function observeRequest(request: FastifyRequest, reply: FastifyReply) {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      latency.observe(labels, reply.elapsedTime / 1000);
    });
  },
  { name: 'backplane-metrics' },
);
