import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { IdParams, envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { AppError } from '../../http/app-error.ts';
import { CommandResultInput, PollReply } from '../../agent-protocol/wire.ts';
import { agentNodeId } from './agent-node.ts';

/** `POST /api/agent/commands/poll` and `POST /api/agent/commands/:id/result`. */
export async function agentCommandRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/api/agent/commands/poll',
    {
      // Every agent calls this every few seconds: request lines would drown the log.
      logLevel: 'warn',
      config: { access: 'agent' },
      schema: { body: Type.Union([Type.Object({}), Type.Null()]), response: { 200: envelopeOf(PollReply) } },
    },
    async (request) => {
      const nodeId = agentNodeId(request);
      return ok({ command: await request.diScope.cradle.commandQueue.claim(nodeId) });
    },
  );

  app.post(
    '/api/agent/commands/:id/result',
    {
      config: { access: 'agent' },
      schema: {
        params: IdParams,
        body: CommandResultInput,
        response: { 200: envelopeOf(Type.Object({ id: Type.Integer(), status: Type.String() })) },
      },
    },
    async (request) => {
      const nodeId = agentNodeId(request);
      const { commandQueue, remoteBackups, remoteRestores } = request.diScope.cradle;
      const outcome = await commandQueue.complete(nodeId, request.params.id, request.body);
      if (outcome.kind === 'not_found') throw new AppError('AGENT_COMMAND_NOT_FOUND');
      if (outcome.kind === 'forbidden') throw new AppError('AGENT_COMMAND_FORBIDDEN');
      if (outcome.kind === 'not_claimed') throw new AppError('AGENT_COMMAND_NOT_CLAIMED');
      if (outcome.kind !== 'applied' && outcome.kind !== 'repeated') throw new AppError('INTERNAL_ERROR');
      const { command } = outcome;
      // A result without a final record update (the agent crashed between the two) still ends the record.
      if (outcome.kind === 'applied' && command.recordKind !== '') {
        const reason = request.body.success
          ? 'the agent finished without reporting the outcome'
          : request.body.error || 'the agent reported a failure without a reason';
        if (command.recordKind === 'backup') await remoteBackups.fail(command.recordId, reason);
        else await remoteRestores.fail(command.recordId, reason);
      }
      return ok({ id: command.id, status: command.status });
    },
  );
}
