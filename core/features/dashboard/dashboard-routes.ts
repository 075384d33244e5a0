import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import {
  DaysQuery,
  DashboardStats,
  TimelinePoint,
  Breakdown,
  NodePerformance,
  Cluster,
  Sla,
} from './dashboard-schemas.ts';

/** Spec 4.5: the dashboard, readable by every role. */
export async function dashboardRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const auth = { access: 'auth' } as const;

  app.get(
    '/api/dashboard/stats',
    { config: auth, schema: { response: { 200: envelopeOf(DashboardStats) } } },
    async (request) => ok(await request.diScope.cradle.dashboard.stats()),
  );
  app.get(
    '/api/dashboard/timeline',
    { config: auth, schema: { querystring: DaysQuery, response: { 200: envelopeOf(Type.Array(TimelinePoint)) } } },
    async (request) => ok(await request.diScope.cradle.dashboard.timeline(request.query.days)),
  );
  app.get('/api/dashboard/sla', { config: auth, schema: { response: { 200: envelopeOf(Sla) } } }, async (request) =>
    ok(await request.diScope.cradle.dashboard.sla()),
  );
  app.get(
    '/api/dashboard/cluster',
    { config: auth, schema: { response: { 200: envelopeOf(Cluster) } } },
    async (request) => ok(await request.diScope.cradle.dashboard.cluster()),
  );
  app.get(
    '/api/dashboard/breakdown',
    { config: auth, schema: { querystring: DaysQuery, response: { 200: envelopeOf(Breakdown) } } },
    async (request) => ok(await request.diScope.cradle.dashboard.breakdown(request.query.days)),
  );
  app.get(
    '/api/dashboard/node-performance',
    { config: auth, schema: { querystring: DaysQuery, response: { 200: envelopeOf(Type.Array(NodePerformance)) } } },
    async (request) => ok(await request.diScope.cradle.dashboard.nodePerformance(request.query.days)),
  );
}
