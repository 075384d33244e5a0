import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DatabaseDriverType } from '@backplane/plugin-api';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';

/**
 * The task fields a driver's config is built from (core/engine/backup/task-source.ts `driverConfig`):
 * a task field is used when the driver's schema declares the config key it feeds.
 */
const TASK_FIELD_OF = {
  host: 'dbHost',
  port: 'dbPort',
  user: 'dbUser',
  password: 'dbPassword',
  path: 'dbPath',
} as const;
const TaskField = Type.Union([
  Type.Literal('dbHost'),
  Type.Literal('dbPort'),
  Type.Literal('dbUser'),
  Type.Literal('dbPassword'),
  Type.Literal('dbPath'),
]);

const DatabaseTypeView = Type.Object({
  type: Type.String(),
  /** Other task types the driver serves (`pgsql` for `postgresql`…). */
  aliases: Type.Array(Type.String()),
  displayName: Type.String(),
  description: Type.String(),
  /** `required`: a task names the databases to dump (`dbName`, comma-separated); `none`: the config names the one thing (SQLite's `dbPath`). */
  databaseNames: Type.Union([Type.Literal('required'), Type.Literal('none')]),
  /** The task's connection fields this driver reads; the others are ignored for it. */
  taskFields: Type.Array(TaskField),
  /** The driver's default for a task field left empty (e.g. `dbPort` 5432), from its schema. */
  defaults: Type.Object({}, { additionalProperties: Type.Union([Type.String(), Type.Number(), Type.Boolean()]) }),
  secretFields: Type.Array(Type.String()),
  /** The driver's own JSON Schema of its connection config. */
  configSchema: Type.Object({}, { additionalProperties: true }),
});

function describe(d: DatabaseDriverType) {
  const props = (d.configSchema as { properties?: Record<string, { default?: unknown }> }).properties ?? {};
  const taskFields: (typeof TASK_FIELD_OF)[keyof typeof TASK_FIELD_OF][] = [];
  const defaults: Record<string, string | number | boolean> = {};
  for (const [key, field] of Object.entries(TASK_FIELD_OF)) {
    if (!(key in props)) continue;
    taskFields.push(field);
    const value = props[key]?.default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') defaults[field] = value;
  }
  return {
    type: d.type,
    aliases: [...(d.aliases ?? [])],
    displayName: d.displayName,
    description: d.description ?? d.displayName,
    databaseNames: d.databaseNames ?? 'required',
    taskFields,
    defaults,
    secretFields: [...d.secretFields],
    configSchema: d.configSchema,
  };
}

/**
 * Every database driver the installed plugins register, with what a task of its type fills in,
 * so a client (the console's task form) builds the form from the server instead of hard-coding
 * the types. Backplane's own route.
 */
export async function databaseTypeCatalogueRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/database/types',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(Type.Array(DatabaseTypeView)) } },
    },
    async (request) =>
      ok([...request.diScope.cradle.databaseDrivers.list()].sort((a, b) => a.type.localeCompare(b.type)).map(describe)),
  );
}
