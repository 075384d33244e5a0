import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { askAgent } from '../../agent-protocol/agent-rpc.ts';
import { DirEntry, type DirListing, type ListDirPayload } from '../../agent-protocol/wire.ts';
import { closedSignal, setTotal } from '../../http/request-helpers.ts';
import { listLocalDir } from './local-fs.ts';

/**
 * `GET /api/nodes/:id/fs/list?path=`: browse a node's filesystem to pick backup paths. The local
 * node (the master) answers itself within BACKPLANE_LOCAL_FS_ROOTS; a remote node's agent
 * answers a `list_dir` command. Operators only: directory names can be sensitive. The answer is
 * a plain array of entries; `X-Total-Count` counts the folder's entries before the cut
 * at 5000 (more than the array holds: the listing was cut).
 */
export async function nodeFsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/nodes/:id/fs/list',
    {
      config: { access: 'operator' },
      schema: {
        params: IdParams,
        querystring: Type.Object({ path: Type.Optional(Type.String({ maxLength: 4096 })) }),
        response: { 200: envelopeOf(Type.Array(DirEntry)) },
      },
    },
    async (request, reply) => {
      const path = request.query.path || '/';
      if (!path.startsWith('/'))
        throw new AppError('INVALID_INPUT', {
          details: [{ path: 'querystring/path', message: 'must be an absolute path' }],
        });
      const { em, config, commandQueue, nodes } = request.diScope.cradle;
      const node = await nodes.get(request.params.id);
      let listing: DirListing;
      if (node.isLocal) {
        listing = await listLocalDir(path, config.localFsRoots);
      } else {
        const answer = await askAgent(
          { em, config, commandQueue, signal: closedSignal(request) },
          node.id,
          'list_dir',
          { path } satisfies ListDirPayload,
        );
        if ('error' in answer) throw new AppError('NODE_FS_FAILED', { message: answer.error });
        listing = answer.result as DirListing;
      }
      const entries = Array.isArray(listing.entries) ? listing.entries : [];
      setTotal(reply, typeof listing.total === 'number' ? listing.total : entries.length);
      return ok(entries);
    },
  );
}
