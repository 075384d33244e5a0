import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type, type Static } from 'typebox';
import { SECRET_MASK } from '@backplane/plugin-api';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { roleAllows } from '../../auth/roles.ts';
import { validateConfig } from '../../plugin-host/provider-config.ts';
import { trimReason } from '../../storage/target-opener.ts';
import { driverFor, discovered } from '../../engine/index.ts';
import { askAgent } from '../../agent-protocol/agent-rpc.ts';
import { isLocalNode } from '../../agent-protocol/local-node.ts';
import { DiscoveredDatabase, type DiscoverDbPayload } from '../../agent-protocol/wire.ts';
import { closedSignal } from '../../http/request-helpers.ts';

const DiscoverBody = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 32 }),
  host: Type.Optional(Type.String({ maxLength: 255 })),
  port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  user: Type.Optional(Type.String({ maxLength: 255 })),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  database: Type.Optional(Type.String({ maxLength: 255 })),
  path: Type.Optional(Type.String({ maxLength: 4096 })),
  /** Discover from a node (its agent connects, so `host` is as the node sees it); 0 or absent = the master. */
  nodeId: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  /**
   * Backplane's: the stored task being edited. With no password (or the mask) sent, the task's
   * stored password is used — only for the task's own server (host and user), so it is never
   * sent anywhere the task would not send it.
   */
  taskId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
});

/** The body's password, or the stored task's when the body names the task and leaves it out. */
async function passwordFor(request: FastifyRequest, body: Static<typeof DiscoverBody>): Promise<string | undefined> {
  const sent = body.password === SECRET_MASK ? undefined : body.password;
  if (body.taskId === undefined || (sent !== undefined && sent !== '')) return sent;
  const { backupTasks } = request.diScope.cradle;
  const task = await backupTasks.get(body.taskId);
  if (task.dbHost !== (body.host ?? '') || task.dbUser !== (body.user ?? '')) {
    throw new AppError('DATABASE_DISCOVER_INVALID', {
      message:
        'The stored password of a task is used only for its own server: send the password for another host or user.',
    });
  }
  return backupTasks.password(task) || undefined;
}

/**
 * The reference's answer, `databases` as the names a task can back up (its console fills a
 * picker with them; the server's own databases are left out, as the reference drops them), and
 * Backplane's fuller listing beside it: every database with its size and a `system` flag.
 */
const DiscoverAnswer = Type.Object({ databases: Type.Array(Type.String()), details: Type.Array(DiscoveredDatabase) });

function discoveryAnswer(found: DiscoveredDatabase[]) {
  return ok({ databases: found.filter((d) => !d.system).map((d) => d.name), details: found });
}

export async function discoveryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/database/discover',
    {
      config: { access: 'auth' },
      schema: { body: DiscoverBody, response: { 200: envelopeOf(DiscoverAnswer) } },
    },
    async (request) => {
      // The spec labels this Auth; it also connects anywhere with supplied credentials, so viewers
      // (read-only by role) are refused rather than handed a credential-testing tool.
      const p = request.principal;
      if ((p?.kind === 'user' || p?.kind === 'apiKey') && !roleAllows(p.role, 'operator'))
        throw new AppError('AUTH_FORBIDDEN');
      const { type, nodeId = 0, taskId: _taskId, password: _sent, ...rest } = request.body;
      const password = await passwordFor(request, request.body);
      const connection = { ...rest, ...(password === undefined ? {} : { password }) };
      const driver = driverFor(request.diScope.cradle.databaseDrivers.list(), type);
      if (!driver)
        throw new AppError('DATABASE_DISCOVER_INVALID_TYPE', { message: `Unknown database type "${type}".` });
      const config = Object.fromEntries(Object.entries(connection).filter(([, v]) => v !== undefined && v !== ''));
      validateConfig(driver, config, 'DATABASE_DISCOVER_INVALID');
      const { em, config: masterConfig, commandQueue } = request.diScope.cradle;
      // The local node is the master itself: it discovers from here, as with no node at all.
      if (nodeId > 0 && !(await isLocalNode(em, nodeId))) {
        const { password, ...visible } = config;
        const answer = await askAgent(
          { em, config: masterConfig, commandQueue, signal: closedSignal(request) },
          nodeId,
          'discover_db',
          { type: driver.type, config: visible } satisfies DiscoverDbPayload,
          password === undefined ? undefined : { password },
        );
        if ('error' in answer) throw new AppError('DATABASE_DISCOVER_FAILED', { message: answer.error.slice(0, 255) });
        const found = (answer.result as { databases?: unknown }).databases;
        return discoveryAnswer(Array.isArray(found) ? found.map(discovered) : []);
      }
      const opener = request.diScope.cradle.storageOpener;
      try {
        const instance = await driver.create(config, opener.deps());
        const found = await instance.discover();
        return discoveryAnswer(found.map(discovered));
      } catch (err) {
        throw new AppError('DATABASE_DISCOVER_FAILED', { message: trimReason(err), cause: err });
      }
    },
  );
}
