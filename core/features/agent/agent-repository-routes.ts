import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';

const Params = Type.Object({
  run: Type.String({ pattern: '^[br][0-9]{1,15}$' }),
  targetId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  capability: Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' }),
  '*': Type.String({ maxLength: 200 }),
});

/**
 * restic's REST protocol for agents, onto the repository of a run's target
 * (core/runs/agent-repository-bridge.ts): append-only, opened by the capability in the path.
 */
export async function agentRepositoryRoutes(fastify: FastifyInstance): Promise<void> {
  // Bodies (restic's packs) stay streams, whatever content type restic sends.
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  fastify.withTypeProvider<TypeBoxTypeProvider>().route({
    method: ['GET', 'HEAD', 'POST', 'DELETE'],
    url: '/api/agent/repositories/:run/:targetId/:capability/*',
    exposeHeadRoute: false,
    // The capability in the path opens it (restic cannot send the node's token); see the bridge.
    config: { access: 'public', rawBody: 'application/octet-stream' },
    bodyLimit: Number.MAX_SAFE_INTEGER,
    schema: { params: Params, hide: true },
    handler: async (request, reply) => {
      const abort = new AbortController();
      // The response closing before it finished is the client gone (the request's own `close`
      // comes as soon as its body was read).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) abort.abort(new Error('the client went away'));
      });
      const body = (request.body as Readable | undefined) ?? request.raw;
      const answer = await request.diScope.cradle.agentRepositoryBridge.serve(
        {
          run: request.params.run,
          targetId: request.params.targetId,
          capability: request.params.capability,
          rest: request.params['*'],
        },
        { method: request.method, query: request.query as Record<string, unknown>, headers: request.headers, body },
        abort.signal,
      );
      void reply.code(answer.status).headers(answer.headers);
      return reply.send(answer.body ?? '');
    },
  });
}
