import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { StorageType } from '@backplane/plugin-api';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { optionDocs } from '../../plugin-host/provider-config.ts';

const Option = Type.Object({
  key: Type.String(),
  label: Type.String(),
  required: Type.Boolean(),
  isPassword: Type.Boolean(),
  default: Type.Optional(Type.String()),
  advanced: Type.Boolean(),
  examples: Type.Array(Type.String()),
  /** The JSON Schema type of the field (`string`, `integer`, `boolean`, `object`…), when the type's schema names one. */
  valueType: Type.Optional(Type.String()),
});

const StorageTypeView = Type.Object({
  type: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  /** `rclone` for every rclone backend; absent for a plugin's own type. */
  family: Type.Optional(Type.String()),
  capabilities: Type.Object({ range: Type.Boolean(), usage: Type.Boolean(), oauth: Type.Boolean() }),
  secretFields: Type.Array(Type.String()),
  options: Type.Array(Option),
  /** The type's own JSON Schema of its config, as the plugin declared it (what the server validates against). */
  configSchema: Type.Object({}, { additionalProperties: true }),
});

function valueTypeOf(t: StorageType, key: string): string | undefined {
  const prop = (t.configSchema as { properties?: Record<string, { type?: unknown }> }).properties?.[key];
  const type = Array.isArray(prop?.type) ? prop.type.find((x) => x !== 'null') : prop?.type;
  return typeof type === 'string' ? type : undefined;
}

/**
 * Every storage type the installed plugins register — the built-in ones (local_disk,
 * google_drive), third-party plugins' and every rclone backend — with its fields, so a client
 * (the console) builds a type's form from the server instead of copying it. The reference has only
 * the rclone catalogue (`/rclone/backends`, kept for its clients).
 */
export async function storageTypeCatalogueRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/storage-targets/types',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(Type.Array(StorageTypeView)) } },
    },
    async (request) => {
      const types = [...request.diScope.cradle.storageTypes.list()]
        // Plugins' own types first, then the rclone backends, each group by name.
        .sort((a, b) => Number(a.family === 'rclone') - Number(b.family === 'rclone') || a.type.localeCompare(b.type));
      return ok(
        types.map((t) => ({
          type: t.type,
          displayName: t.displayName,
          description: t.description ?? t.displayName,
          ...(t.family ? { family: t.family } : {}),
          capabilities: { range: t.capabilities.range, usage: t.capabilities.usage, oauth: t.capabilities.oauth },
          secretFields: [...t.secretFields],
          options: optionDocs(t).map((o) => {
            const valueType = valueTypeOf(t, o.name);
            return {
              key: o.name,
              label: o.help,
              required: o.required,
              isPassword: o.secret,
              advanced: o.advanced ?? false,
              examples: o.examples ?? [],
              ...(o.default === undefined ? {} : { default: o.default }),
              ...(valueType ? { valueType } : {}),
            };
          }),
          configSchema: t.configSchema,
        })),
      );
    },
  );
}
