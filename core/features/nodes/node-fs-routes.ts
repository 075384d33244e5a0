import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { askAgent } from '../../agent-protocol/agent-rpc.ts';
import type { ListDirPayload } from '../../agent-protocol/wire.ts';
import { closedSignal } from '../../http/request-helpers.ts';

/**
 * `GET /api/nodes/:id/fs/list?path=`: browse a node's filesystem to pick backup paths, answered
 * by its agent (a `list_dir` command). Operators only: directory names can be sensitive.
 */
export async function nodeFsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/api/nodes/:id/fs/list', {
    config: { access: 'operator' },
    schema: {
      params: IdParams,
      querystring: Type.Object({ path: Type.Optional(Type.String({ maxLength: 4096 })) }),
    },
  }, async (request) => {
    const path = request.query.path || '/';
    if (!path.startsWith('/')) throw new AppError('INVALID_INPUT', { details: [{ path: 'querystring/path', message: 'must be an absolute path' }] });
    const { em, config, commandQueue } = request.diScope.cradle;
    const answer = await askAgent({ em, config, commandQueue, signal: closedSignal(request) }, request.params.id, 'list_dir', { path } satisfies ListDirPayload);
    if ('error' in answer) throw new AppError('NODE_FS_FAILED', { message: answer.error });
    return ok(answer.result);
  });
}
