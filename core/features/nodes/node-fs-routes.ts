import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { NodeEntity } from '../../db/entities/node.ts';
import { nodeStatus } from './node-view.ts';

/** How long a listing waits for the agent's answer (it polls every few seconds). */
export const FS_LIST_WAIT_MS = 15_000;

/**
 * `GET /api/nodes/:id/fs/list?path=`: browse a node's filesystem to pick backup paths. The
 * master cannot reach the node, so the request becomes a `list_dir` command and waits for the
 * agent's answer. Operators only: directory names can be sensitive.
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
    const { em, config, commandQueue } = request.diScope.cradle;
    const node = await em.findOne(NodeEntity, { id: request.params.id });
    if (!node) throw new AppError('NODE_NOT_FOUND');
    const path = request.query.path || '/';
    if (!path.startsWith('/')) throw new AppError('INVALID_INPUT', { details: [{ path: 'querystring/path', message: 'must be an absolute path' }] });
    if (nodeStatus(node, config.nodeOfflineSeconds) !== 'online') throw new AppError('NODE_OFFLINE', { message: `Node "${node.name}" is offline.` });
    const command = await commandQueue.enqueue({ nodeId: node.id, type: 'list_dir', payload: { path } });
    const abort = new AbortController();
    request.raw.once('close', () => abort.abort());
    const done = await commandQueue.waitFor(command.id, FS_LIST_WAIT_MS, abort.signal);
    if (!done || done.status === 'pending' || done.status === 'claimed') {
      await commandQueue.settle(command.id, 'failed', 'no answer from the agent in time');
      throw new AppError('NODE_FS_UNAVAILABLE', { message: `Node "${node.name}" did not answer within ${FS_LIST_WAIT_MS / 1000} s.` });
    }
    if (done.status === 'failed') throw new AppError('NODE_FS_FAILED', { message: done.error || 'the agent could not list this directory' });
    return ok(JSON.parse(done.result || '{}') as unknown);
  });
}
