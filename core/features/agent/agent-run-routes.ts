import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf, rawResponse } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import {
  RecordTargetParams,
  RecordUpdateInput,
  RelayReply,
  TaskSpec,
  TaskSpecQuery,
  UpdateReply,
} from '../../agent-protocol/wire.ts';
import { agentNodeId } from './agent-node.ts';

const SHA256 = /^[0-9a-f]{64}$/;
/** A tar snapshot file names a tree (about 30 bytes a file): 256 MiB is some eight million files. */
const SNAPSHOT_LIMIT = 256 * 1024 * 1024;

/** Backups on agents: the task specification, record updates and the artifact relay. */
export async function agentRunRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/agent/tasks/:id',
    {
      config: { access: 'agent' },
      schema: { params: IdParams, querystring: TaskSpecQuery, response: { 200: envelopeOf(TaskSpec) } },
    },
    async (request, reply) => {
      const nodeId = agentNodeId(request);
      void reply.header('cache-control', 'no-store');
      return ok(await request.diScope.cradle.remoteBackups.spec(nodeId, request.params.id, request.query.recordId));
    },
  );

  app.post(
    '/api/agent/records/:id',
    {
      config: { access: 'agent' },
      // Manifest batches of 2000 entries with long paths need more than the default 1 MiB.
      bodyLimit: 16 * 1024 * 1024,
      schema: { params: IdParams, body: RecordUpdateInput, response: { 200: envelopeOf(UpdateReply) } },
    },
    async (request) => {
      const nodeId = agentNodeId(request);
      return ok(await request.diScope.cradle.remoteBackups.update(nodeId, request.params.id, request.body));
    },
  );

  app.get(
    '/api/agent/records/:id/base-snapshot',
    {
      config: { access: 'agent' },
      schema: {
        params: IdParams,
        response: {
          200: rawResponse("The tar snapshot file of the differential's full", ['application/octet-stream'], 'binary'),
        },
      },
    },
    async (request, reply) => {
      const nodeId = agentNodeId(request);
      const data = await request.diScope.cradle.remoteBackups.baseSnapshot(nodeId, request.params.id);
      void reply.header('cache-control', 'no-store').type('application/octet-stream');
      return reply.send(data);
    },
  );

  await app.register(async function relay(scope) {
    // The artifact stays a stream: the parser hands the request body over untouched.
    scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));
    scope.withTypeProvider<TypeBoxTypeProvider>().put(
      '/api/agent/records/:id/artifacts/:targetId',
      {
        config: { access: 'agent', rawBody: 'application/octet-stream' },
        bodyLimit: Number.MAX_SAFE_INTEGER,
        schema: { params: RecordTargetParams, response: { 200: envelopeOf(RelayReply) } },
      },
      async (request) => {
        const nodeId = agentNodeId(request);
        const length = request.headers['content-length'];
        if (length === undefined || !/^\d{1,16}$/.test(length)) throw new AppError('CONTENT_LENGTH_REQUIRED');
        const sha256 = String(request.headers['x-backplane-sha256'] ?? '').toLowerCase();
        if (!SHA256.test(sha256))
          throw new AppError('INVALID_INPUT', { message: 'X-Backplane-SHA256 must be 64 hex digits.' });
        const key = String(request.headers['x-backplane-object-key'] ?? '');
        if (!(request.body instanceof Object) || typeof (request.body as Readable).pipe !== 'function')
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', { message: 'Send the artifact as application/octet-stream.' });
        const body = request.body as Readable;
        return ok(
          await request.diScope.cradle.remoteBackups.relay(nodeId, request.params.id, request.params.targetId, {
            key,
            size: Number(length),
            sha256,
            body,
          }),
        );
      },
    );

    scope.withTypeProvider<TypeBoxTypeProvider>().put(
      '/api/agent/records/:id/tar-snapshot',
      {
        config: { access: 'agent', rawBody: 'application/octet-stream' },
        bodyLimit: SNAPSHOT_LIMIT,
        schema: { params: IdParams, response: { 200: envelopeOf(Type.Object({ stored: Type.Boolean() })) } },
      },
      async (request) => {
        const nodeId = agentNodeId(request);
        if (!(request.body instanceof Object) || typeof (request.body as Readable).pipe !== 'function')
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', {
            message: 'Send the snapshot file as application/octet-stream.',
          });
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of request.body as Readable) {
          size += (chunk as Buffer).length;
          if (size > SNAPSHOT_LIMIT) throw new AppError('PAYLOAD_TOO_LARGE');
          chunks.push(chunk as Buffer);
        }
        await request.diScope.cradle.remoteBackups.storeSnapshot(nodeId, request.params.id, Buffer.concat(chunks));
        return ok({ stored: true });
      },
    );
  });
}
