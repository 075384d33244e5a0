import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { SETTINGS } from './settings-catalogue.ts';

const SettingView = Type.Object({
  key: Type.String(),
  kind: Type.Union([
    Type.Literal('text'),
    Type.Literal('boolean'),
    Type.Literal('integer'),
    Type.Literal('url'),
    Type.Literal('timezone'),
    Type.Literal('language'),
    Type.Literal('rate'),
  ]),
  description: Type.String(),
  default: Type.String(),
  secret: Type.Boolean(),
  /** Why the setting has no effect yet: any value but the default is refused (SETTINGS_UNSUPPORTED). */
  notYet: Type.Optional(Type.String()),
});

/**
 * What each setting is, for clients that edit them (the console's settings page): the values
 * stay in GET/PUT /api/settings, strings as in the reference. Backplane's own route.
 */
export async function settingsCatalogueRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/settings/catalogue',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(Type.Array(SettingView)) } },
    },
    async () =>
      ok(
        Object.entries(SETTINGS).map(([key, def]) => ({
          key,
          kind: def.kind,
          description: def.description,
          default: def.default,
          secret: def.secret === true,
          ...(def.notYet ? { notYet: def.notYet } : {}),
        })),
      ),
  );
}
