import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { auditActor } from '../../events/audit-actor.ts';

const SettingsMap = Type.Record(Type.String(), Type.String());

export async function settingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/settings',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(SettingsMap) } },
    },
    async (request) => ok(await request.diScope.cradle.settings.publicView()),
  );

  app.put(
    '/api/settings',
    {
      config: { access: 'admin' },
      schema: {
        body: Type.Record(
          Type.String({ maxLength: 128 }),
          Type.Union([Type.String({ maxLength: 4096 }), Type.Number(), Type.Boolean()]),
          { maxProperties: 64 },
        ),
        response: { 200: envelopeOf(SettingsMap) },
      },
    },
    async (request) => {
      const { settings, audit } = request.diScope.cradle;
      const changed = await settings.update(request.body);
      if (changed.includes('timezone')) await request.diScope.cradle.scheduler.reload();
      // Names only: a secret's value never reaches the audit log.
      await audit.record(auditActor(request), {
        category: 'settings',
        action: 'update',
        targetType: 'settings',
        detail: changed.join(', '),
      });
      return ok(await settings.publicView());
    },
  );
}
