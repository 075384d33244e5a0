import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { asValue, type AwilixContainer } from 'awilix';
import type { Config } from './config/config.ts';
import type { Clock } from './lib/clock.ts';
import { createAppContainer, type Cradle } from './container.ts';
import { loadModules } from './app-modules.ts';
import type { AppModule } from './lib/app-module.ts';
import { ServiceLifecycles } from './lib/service-lifecycle.ts';
import { openOrm, migrate } from './db/orm.ts';
import { openCluster } from './db/open-cluster.ts';
import { BOOT_ID_STRIDE } from './events/event-bus.ts';
import { loadMasterKey } from './security/master-key.ts';
import { VERSION } from './engine/index.ts';
import { loadAgeKeys } from './security/age-keys.ts';
import { checkKeys } from './security/key-check.ts';
import type { LoginLimits } from './auth/login-limiter.ts';
import { serverOptions } from './http/server-options.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { openapiDocs } from './http/openapi.ts';
import { httpStack } from './http/http-stack.ts';
import { accessGuard } from './auth/guard.ts';
import { metricsPlugin } from './metrics/metrics-plugin.ts';
import { discoverPlugins } from './plugin-host/discover.ts';
import { importPlugins, registerPlugins, type LoadedPlugin } from './plugin-host/load.ts';
import { nextBootEpoch } from './events/boot-epoch.ts';
import { resetScratchDir } from './storage/scratch-dir.ts';
import { ensureLocalNode } from './agent-protocol/local-node.ts';

export interface BuildOptions {
  /** Overrides the login limits (tests of the limiter use small numbers). */
  loginLimits?: LoginLimits;
  /** Working directory for relative BACKPLANE_PLUGINS paths. */
  cwd?: string;
  /** pino level; defaults to the config's. */
  logLevel?: string;
  /** Time for command leases, the lease monitor and the scheduler; the system clock by default. */
  clock?: Clock;
  /** More folders whose subfolders hold a `module.ts` (a test's own feature). */
  moduleDirs?: string[];
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The services that start and stop, in their order (core/lib/service-lifecycle.ts). */
    lifecycles: ServiceLifecycles;
  }
}

interface AppPluginOptions {
  container: AwilixContainer<Cradle>;
  plugins: LoadedPlugin[];
  modules: AppModule[];
}

/** Everything Backplane adds to a Fastify instance. Wrapped with fastify-plugin so its hooks and handlers apply at the root. */
export const backplaneApp = fp(
  async function backplaneApp(app: FastifyInstance, opts: AppPluginOptions) {
    const { container, plugins, modules } = opts;
    await app.register(httpStack, { container, corsOrigins: container.cradle.config.corsOrigins, accessGuard });
    await app.register(metricsPlugin);
    await registerPlugins(app, plugins, container.cradle);
    await app.register(openapiDocs);
    for (const m of modules) for (const routes of m.routes ?? []) await app.register(routes);

    const lifecycles = new ServiceLifecycles(modules, container.cradle, (service, err) =>
      app.log.error({ err, service }, 'a service failed to stop'),
    );
    app.decorate('lifecycles', lifecycles);
    const { cluster } = container.cradle;
    app.addHook('onReady', async function startServices() {
      await lifecycles.start('always');
      // What one master does for all (core/db/cluster.ts) starts when this master comes to lead
      // (at once on SQLite) and stops when it stops leading.
      cluster.onLeadership((leader) => lifecycles[leader ? 'start' : 'stop']('leading'));
      await cluster.start();
    });
    app.addHook('onClose', async function stopServices() {
      // Every service, in the reverse of its start order; the session closes after this master's
      // runs stopped, or the leader could settle them as a dead master's.
      await lifecycles.stop();
      await cluster.stop();
      await container.cradle.orm.close();
    });
  },
  { name: 'backplane-app' },
);

/**
 * Builds a ready (not listening) app: master key, database and migrations, plugins, routes.
 * Only the entry point listens; tests call this and use `inject` or listen on port 0.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const masterKey = loadMasterKey(config.dataDir, config.secretKey);
  const orm = await openOrm(config.databaseUrl);
  let app: FastifyInstance | undefined;
  try {
    await migrate(orm);
    await ensureLocalNode(orm.em.fork(), VERSION);
    const plugins = await importPlugins(
      await discoverPlugins({ projectRoot: config.projectRoot, configured: config.plugins, cwd: options.cwd }),
      config.pluginsDisabled,
    );
    const ageKeys = await loadAgeKeys(config);
    // Every master on one database holds the keys it was sealed and encrypted with, or none starts.
    await checkKeys(orm, { masterKey, ageRecipient: ageKeys.recipient });
    // Scratch space (provider temp files, dumps on their way into an archive, sandboxes), emptied of what a crash left.
    const scratch = await resetScratchDir(config.dataDir);
    const bootEpoch = await nextBootEpoch(orm);
    const modules = await loadModules(options.moduleDirs);
    const container = createAppContainer({ ...options, config, orm, masterKey, ageKeys, bootEpoch }, modules);
    container.register({ plugins: asValue(plugins) });
    const instance: FastifyInstance = Fastify(serverOptions(config, options.logLevel ?? config.logLevel));
    instance.setValidatorCompiler(createValidatorCompiler());
    container.register({ logger: asValue(instance.log), serverAddresses: asValue(() => instance.addresses()) });
    container.register({
      cluster: asValue(
        openCluster(config.databaseUrl, { masterId: bootEpoch, numberFloor: bootEpoch * BOOT_ID_STRIDE }, instance.log),
      ),
    });
    if (scratch.removed.length > 0)
      instance.log.warn(
        { path: scratch.path, removed: scratch.removed.slice(0, 20) },
        'removed what an interrupted run left in the scratch folder',
      );
    app = instance;
    await instance.register(backplaneApp, { container, plugins, modules });
    await instance.ready();
    return instance;
  } catch (err) {
    // The ORM's close hook exists only once the app got that far; close it here in any case.
    if (app) await app.close().catch(() => undefined);
    if (await orm.isConnected().catch(() => false)) await orm.close().catch(() => undefined);
    throw err;
  }
}
