import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { EVENT_TYPES } from '../../notifications/subscription.ts';
import { EVENT_DESCRIPTIONS } from '../../notifications/event-descriptions.ts';

/** The event types a channel's `eventTypes` may list (Backplane's own route; the reference hard-codes them in its console). */
export async function eventTypeRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/notifications/event-types',
    {
      config: { access: 'auth' },
      schema: {
        response: { 200: envelopeOf(Type.Array(Type.Object({ type: Type.String(), description: Type.String() }))) },
      },
    },
    async () => ok(EVENT_TYPES.map((type) => ({ type, description: EVENT_DESCRIPTIONS[type] }))),
  );
}
