import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { diskUsage } from '@backplane/plugin-api';
import { scheduleTimeZone } from '../../backup/time-zone.ts';
import { envelopeOf } from '../../http/schemas.ts';
import { ok } from '../../http/envelope.ts';
import { VERSION } from '../../engine/index.ts';
import { databaseKind, databaseLocation } from '../../db/orm.ts';
import { checkForUpdate } from './update-check.ts';

const PluginInfo = Type.Object({
  name: Type.String(),
  origin: Type.String(),
  source: Type.String(),
  version: Type.Union([Type.String(), Type.Null()]),
});

const SystemInfo = Type.Object({
  version: Type.String(),
  /** The reference's run mode: `release`, or `debug` while the log level is debug or trace. */
  mode: Type.Union([Type.Literal('release'), Type.Literal('debug')]),
  /** What this process is: the master (agents do not serve this API). */
  role: Type.Literal('master'),
  database: Type.String(),
  databasePath: Type.String(),
  nodeVersion: Type.String(),
  platform: Type.String(),
  startedAt: Type.String({ format: 'date-time' }),
  uptimeSeconds: Type.Integer(),
  dataDir: Type.String(),
  diskTotal: Type.Number(),
  diskFree: Type.Number(),
  diskUsed: Type.Number(),
  plugins: Type.Array(PluginInfo),
  /** The zone cron schedules and maintenance windows are read in: the `timezone` setting, else the server's own. */
  scheduleTimeZone: Type.String(),
  providers: Type.Object({
    storage: Type.Record(Type.String(), Type.String()),
    notifier: Type.Record(Type.String(), Type.String()),
    database: Type.Record(Type.String(), Type.String()),
  }),
});

export async function systemRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/api/system/info',
    {
      config: { access: 'auth' },
      schema: { response: { 200: envelopeOf(SystemInfo) } },
    },
    async (request) => {
      const { config, startedAt, plugins, storageTypes, notifierTypes, databaseDrivers } = request.diScope.cradle;
      const disk = await diskUsage(config.dataDir);
      return ok({
        version: VERSION,
        mode: config.logLevel === 'debug' || config.logLevel === 'trace' ? ('debug' as const) : ('release' as const),
        role: 'master' as const,
        database: databaseKind(config.databaseUrl),
        databasePath: databaseLocation(config.databaseUrl),
        nodeVersion: process.version,
        platform: `${process.platform}/${process.arch}`,
        startedAt: startedAt.toISOString(),
        uptimeSeconds: Math.floor((Date.now() - startedAt.getTime()) / 1000),
        dataDir: config.dataDir,
        diskTotal: disk.totalBytes,
        diskFree: disk.freeBytes,
        diskUsed: disk.usedBytes,
        plugins: plugins.map((p) => ({
          name: p.name,
          origin: p.source.origin,
          source: p.source.label,
          version: p.source.version ?? null,
        })),
        scheduleTimeZone: await scheduleTimeZone(request.diScope.cradle.orm),
        providers: {
          storage: storageTypes.owners(),
          notifier: notifierTypes.owners(),
          database: databaseDrivers.owners(),
        },
      });
    },
  );

  app.get(
    '/api/system/update-check',
    {
      config: { access: 'auth' },
      schema: {
        response: {
          200: envelopeOf(
            Type.Object({
              currentVersion: Type.String(),
              latestVersion: Type.String(),
              hasUpdate: Type.Boolean(),
              releaseUrl: Type.String(),
              releaseNotes: Type.String(),
              publishedAt: Type.Optional(Type.String()),
              downloadUrl: Type.String(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const { config } = request.diScope.cradle;
      return ok(await checkForUpdate(config.updateFeedUrl, VERSION, config.updateCheckTimeoutMs));
    },
  );
}
