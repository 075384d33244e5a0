import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { search } from './search-service.ts';

const Kind = Type.Union([
  Type.Literal('task'),
  Type.Literal('record'),
  Type.Literal('storage'),
  Type.Literal('node'),
  Type.Literal('template'),
  Type.Literal('notification'),
]);
const Item = Type.Object({
  kind: Kind,
  id: Type.Integer(),
  title: Type.String(),
  subtitle: Type.String(),
  highlight: Type.String(),
  url: Type.String(),
});
const Result = Type.Object({
  query: Type.String(),
  tasks: Type.Array(Item),
  records: Type.Array(Item),
  storage: Type.Array(Item),
  nodes: Type.Array(Item),
  templates: Type.Array(Item),
  notifications: Type.Array(Item),
  totalCount: Type.Integer(),
});

/** Spec 4.7: search by name fragments; every group holds what every role may read. */
export async function searchRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/search',
    {
      config: { access: 'auth' },
      schema: {
        querystring: Type.Object({
          q: Type.String({ maxLength: 100 }),
          limit: Type.Integer({ minimum: 1, maximum: 50, default: 10 }),
        }),
        response: { 200: envelopeOf(Result) },
      },
    },
    async (request) => {
      const term = request.query.q.trim();
      if (term === '')
        return ok({
          query: '',
          tasks: [],
          records: [],
          storage: [],
          nodes: [],
          templates: [],
          notifications: [],
          totalCount: 0,
        });
      return ok(await search(request.diScope.cradle.em, term, request.query.limit));
    },
  );
}
