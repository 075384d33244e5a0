import Fastify, { type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { fastifyAwilixPlugin } from '@fastify/awilix';
import { asValue, type AwilixContainer } from 'awilix';
import type { Config } from './config/config.ts';
import type { Clock } from './lib/clock.ts';
import { createAppContainer, type Cradle } from './container.ts';
import type { StorageHealthMonitor } from './storage/storage-health.ts';
import type { TemporarySweep } from './storage/temporary-sweep.ts';
import type { AuditRetention } from './events/audit-retention.ts';
import { openOrm, migrate, databaseKind } from './db/orm.ts';
import { LocalCluster, type Cluster } from './db/cluster.ts';
import { PgCluster } from './db/pg-cluster.ts';
import { BOOT_ID_STRIDE } from './events/event-bus.ts';
import { loadMasterKey } from './security/master-key.ts';
import { loadOrCreateAgeIdentity } from './engine/age-identity.ts';
import { checkKeys } from './security/key-check.ts';
import { ConfigError } from './config/load-config.ts';
import { backupRecordRoutes } from './features/backup-records/backup-record-routes.ts';
import { recoveryRoutes } from './features/recovery/recovery-routes.ts';
import { nodeRoutes } from './features/nodes/node-routes.ts';
import { installRoutes } from './features/install/install-routes.ts';
import type { LoginLimits } from './auth/login-limiter.ts';
import { accessGuard } from './auth/guard.ts';
import { requestScope } from './http/request-scope.ts';
import { registerErrorHandling } from './http/error-handler.ts';
import { clientErrorHandler, frameworkErrors } from './http/client-errors.ts';
import { loggerOptions } from './http/logging.ts';
import { createValidatorCompiler } from './http/validation.ts';
import { inputGuard } from './http/input-guard.ts';
import { responseHeaders } from './http/response-headers.ts';
import { openapi, openapiDocs } from './http/openapi.ts';
import { cors } from './http/cors.ts';
import { metricsPlugin } from './metrics/metrics-plugin.ts';
import { nodeFsRoutes } from './features/nodes/node-fs-routes.ts';
import { agentCommandRoutes } from './features/agent/agent-command-routes.ts';
import { agentRunRoutes } from './features/agent/agent-run-routes.ts';
import { agentRestoreRoutes } from './features/agent/agent-restore-routes.ts';
import { discoverPlugins } from './plugin-host/discover.ts';
import { importPlugins, registerPlugins, type LoadedPlugin } from './plugin-host/load.ts';
import { nextBootEpoch } from './events/boot-epoch.ts';
import { healthRoutes } from './features/health/health-routes.ts';
import { authRoutes } from './features/auth/auth-routes.ts';
import { accountSecurityRoutes } from './features/auth/account-security-routes.ts';
import { dashboardRoutes } from './features/dashboard/dashboard-routes.ts';
import { complianceRoutes } from './features/reports/compliance-routes.ts';
import { searchRoutes } from './features/search/search-routes.ts';
import fastifyCookie from '@fastify/cookie';
import { userRoutes } from './features/users/user-routes.ts';
import { apiKeyRoutes } from './features/api-keys/api-key-routes.ts';
import { settingsRoutes } from './features/settings/settings-routes.ts';
import { settingsCatalogueRoutes } from './features/settings/settings-catalogue-routes.ts';
import { auditRoutes } from './features/audit/audit-routes.ts';
import { systemRoutes } from './features/system/system-routes.ts';
import { agentSelfRoutes } from './features/agent-identity/agent-self-routes.ts';
import { storageTargetRoutes } from './features/storage-targets/storage-target-routes.ts';
import { storageTypeCatalogueRoutes } from './features/storage-targets/storage-type-catalogue.ts';
import { discoveryRoutes } from './features/discovery/discovery-routes.ts';
import { databaseTypeCatalogueRoutes } from './features/discovery/database-type-catalogue.ts';
import { backupTaskRoutes } from './features/backup-tasks/backup-task-routes.ts';
import { taskTransferRoutes } from './features/task-transfer/task-transfer-routes.ts';
import { taskTemplateRoutes } from './features/task-templates/task-template-routes.ts';
import { eventStreamRoutes } from './features/events/event-stream-routes.ts';
import { notificationRoutes } from './features/notifications/notification-routes.ts';
import { eventTypeRoutes } from './features/notifications/event-type-routes.ts';
import { fastifySSE } from '@fastify/sse';
import { resetScratchDir } from './storage/scratch-dir.ts';
import { ensureLocalNode } from './agent-protocol/local-node.ts';
import { VERSION } from './config/version.ts';
import { consolePlugin } from './features/console/console-plugin.ts';

export interface BuildOptions {
  /** Overrides the login limits (tests of the limiter use small numbers). */
  loginLimits?: LoginLimits;
  /** Working directory for relative BACKPLANE_PLUGINS paths. */
  cwd?: string;
  /** pino level; defaults to the config's. */
  logLevel?: string;
  /** Time for command leases, the lease monitor and the scheduler; the system clock by default. */
  clock?: Clock;
}

declare module 'fastify' {
  interface FastifyInstance {
    storageHealth: StorageHealthMonitor;
    auditRetention: AuditRetention;
    temporarySweep: TemporarySweep;
  }
}

interface AppPluginOptions { container: AwilixContainer<Cradle>; plugins: LoadedPlugin[] }

/** Everything Backplane adds to a Fastify instance. Wrapped with fastify-plugin so its hooks and handlers apply at the root. */
export const backplaneApp = fp(async function backplaneApp(app: FastifyInstance, opts: AppPluginOptions) {
  const { container, plugins } = opts;
  // First, so every response carries them, even one refused by a later hook.
  await app.register(responseHeaders);
  await app.register(fastifyAwilixPlugin, { container, disposeOnClose: true, disposeOnResponse: true, strictBooleanEnforced: true });
  registerErrorHandling(app);
  await app.register(requestScope);
  // Before the guard: a preflight is answered in onRequest, before authentication (core/http/cors.ts).
  await app.register(cors, { origins: container.cradle.config.corsOrigins });
  // Before the guard and the routes: it labels the docs' own routes and sees every route as it is added.
  await app.register(openapi);
  await app.register(accessGuard);
  await app.register(inputGuard);
  await app.register(metricsPlugin);
  // Contract: a heartbeat comment every 25 s on every stream.
  await app.register(fastifySSE, { heartbeatInterval: 25_000 });
  // Read by the login (the trusted-device cookie); no signing: the cookie holds a random token.
  await app.register(fastifyCookie);
  await registerPlugins(app, plugins, container.cradle);
  await app.register(openapiDocs);

  await app.register(healthRoutes);
  await app.register(authRoutes);
  await app.register(accountSecurityRoutes);
  await app.register(dashboardRoutes);
  await app.register(complianceRoutes);
  await app.register(searchRoutes);
  await app.register(userRoutes);
  await app.register(apiKeyRoutes);
  await app.register(settingsRoutes);
  await app.register(settingsCatalogueRoutes);
  await app.register(auditRoutes);
  await app.register(systemRoutes);
  await app.register(agentSelfRoutes);
  await app.register(nodeRoutes);
  await app.register(nodeFsRoutes);
  await app.register(agentCommandRoutes);
  await app.register(agentRunRoutes);
  await app.register(agentRestoreRoutes);
  await app.register(installRoutes);
  await app.register(storageTargetRoutes);
  await app.register(storageTypeCatalogueRoutes);
  await app.register(discoveryRoutes);
  await app.register(databaseTypeCatalogueRoutes);
  await app.register(taskTransferRoutes);
  await app.register(backupTaskRoutes);
  await app.register(taskTemplateRoutes);
  await app.register(backupRecordRoutes);
  await app.register(recoveryRoutes);
  await app.register(eventStreamRoutes);
  await app.register(notificationRoutes);
  await app.register(eventTypeRoutes);
  // Last: the console's page fallback answers only what no route above claims.
  await app.register(consolePlugin);

  const { backupRuns, scheduler, recordDeleter, storageHealth, auditRetention, temporarySweep, auditWebhook } = container.cradle;
  // Registered now, so /metrics lists every series (at zero) before the first run ends.
  void container.cradle.recoveryMetrics;
  app.decorate('storageHealth', storageHealth);
  app.decorate('auditRetention', auditRetention);
  app.decorate('temporarySweep', temporarySweep);
  let deletionSweep: NodeJS.Timeout | undefined;
  const { cluster, deadMasters } = container.cradle;
  /**
   * What one master does for all (core/db/cluster.ts): the schedule, the sweeps and checks, the
   * notification deliveries, and settling what stopped masters left — started when this master
   * comes to lead (at once on SQLite), stopped when it stops leading.
   */
  const lead = async (): Promise<void> => {
    storageHealth.start(container.cradle.config.storageHealthIntervalSeconds);
    auditRetention.start();
    await container.cradle.deliveryWorker.start();
    container.cradle.nodeMonitor.start();
    container.cradle.slaScan.start();
    // Order matters: settle what a crash left running before the scheduler checks for overlap.
    await deadMasters.start();
    await container.cradle.leaseMonitor.start();
    await scheduler.start();
    // After recovery, which already removed what the interrupted runs left.
    temporarySweep.start(container.cradle.config.tempSweepIntervalSeconds);
    const sweep = (): void => void recordDeleter.retryPending().catch((err: unknown) => app.log.error({ err }, 'deletion retry failed'));
    sweep();
    deletionSweep = setInterval(sweep, 10 * 60_000).unref();
  };
  const follow = async (): Promise<void> => {
    scheduler.stop();
    clearInterval(deletionSweep);
    await deadMasters.stop();
    await container.cradle.leaseMonitor.stop();
    await storageHealth.stop();
    await temporarySweep.stop();
    auditRetention.stop();
    await container.cradle.nodeMonitor.stop();
    await container.cradle.slaScan.stop();
  };
  app.addHook('onReady', async function startBackgroundWork() {
    container.cradle.metricsCollector.start();
    // Every master enforces the time limits of its own runs (the leader: of agents' runs too).
    container.cradle.runTimeLimits.start();
    // The delivery worker stops last on shutdown (onClose), at once when leadership is lost.
    cluster.onLeadership((leader) => (leader ? lead() : follow().then(() => container.cradle.deliveryWorker.stop())));
    container.cradle.backupCancel.listen((err) => app.log.error({ err }, 'a cancel asked on another master failed'));
    cluster.onSessionLost(() => backupRuns.abortRunning('this master lost its database session; another master may settle this run'));
    await cluster.start();
  });

  auditWebhook.start();
  app.addHook('onClose', async function closeOrm() {
    auditWebhook.stop();
    // Leadership ends first (follow() stops the schedule and the sweeps); the session closes
    // only after this master's runs stopped, or the leader could settle them as a dead master's.
    if (cluster.leader) await follow();
    await container.cradle.runTimeLimits.stop();
    await backupRuns.stop();
    await Promise.all([container.cradle.restores.stop(), container.cradle.verifications.stop(), container.cradle.replications.stop()]);
    await container.cradle.metricsCollector.stop();
    await cluster.stop();
    // Last: whatever the stopping services raised is in the outbox, sent now (by the leader) or after the restart.
    await container.cradle.deliveryWorker.stop();
    await container.cradle.orm.close();
  });
}, { name: 'backplane-app' });

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
    const plugins = await importPlugins(await discoverPlugins({ projectRoot: config.projectRoot, configured: config.plugins, cwd: options.cwd }), config.pluginsDisabled);
    const ageKeys = await loadOrCreateAgeIdentity(config.dataDir, config.ageIdentityFile).catch((err: unknown) => {
      if (config.ageIdentityFile) throw new ConfigError(`BACKPLANE_AGE_IDENTITY_FILE ${config.ageIdentityFile}: ${(err as Error).message}`);
      throw err;
    });
    // Every master on one database holds the keys it was sealed and encrypted with, or none starts.
    await checkKeys(orm, { masterKey, ageRecipient: ageKeys.recipient });
    // Scratch space (provider temp files, dumps on their way into an archive, sandboxes), emptied of what a crash left.
    const scratch = await resetScratchDir(config.dataDir);
    const bootEpoch = await nextBootEpoch(orm);
    const container = createAppContainer({ config, orm, masterKey, ageKeys: { identity: ageKeys.identity, recipient: ageKeys.recipient }, bootEpoch, loginLimits: options.loginLimits, clock: options.clock });
    container.register({ plugins: asValue(plugins) });
    const instance: FastifyInstance = Fastify({
      logger: loggerOptions(options.logLevel ?? config.logLevel),
      trustProxy: config.trustedProxies,
      bodyLimit: 1024 * 1024,
      return503OnClosing: true,
      // Event streams never go idle: without this a shutdown would wait for every open dashboard.
      forceCloseConnections: true,
      // Refusals before a route is found answer in the envelope too.
      clientErrorHandler,
      frameworkErrors,
    });
    instance.setValidatorCompiler(createValidatorCompiler());
    container.register({ logger: asValue(instance.log) });
    container.register({ cluster: asValue(createCluster(config.databaseUrl, bootEpoch, instance.log, container.cradle)) });
    if (scratch.removed.length > 0) instance.log.warn({ path: scratch.path, removed: scratch.removed.slice(0, 20) }, 'removed what an interrupted run left in the scratch folder');
    app = instance;
    await instance.register(backplaneApp, { container, plugins });
    await instance.ready();
    return instance;
  } catch (err) {
    // The ORM's close hook exists only once the app got that far; close it here in any case.
    if (app) await app.close().catch(() => undefined);
    if (await orm.isConnected().catch(() => false)) await orm.close().catch(() => undefined);
    throw err;
  }
}

/**
 * The masters sharing the database: one on SQLite; on PostgreSQL any number, whose events and
 * live logs then travel through the database (LISTEN/NOTIFY) so every master's clients see them.
 */
function createCluster(databaseUrl: string, masterId: number, log: FastifyInstance['log'], cradle: Pick<Cradle, 'events' | 'recordLogs' | 'restoreLogs' | 'verifyLogs'>): Cluster {
  const onError = (err: unknown): void => log.error({ err }, 'cluster notice failed');
  if (databaseKind(databaseUrl) === 'sqlite') return new LocalCluster(masterId, onError);
  const cluster = new PgCluster({ url: databaseUrl, masterId, numberFloor: masterId * BOOT_ID_STRIDE, onError, log });
  cradle.events.relay(cluster, onError);
  for (const hub of [cradle.recordLogs, cradle.restoreLogs, cradle.verifyLogs]) hub.relay(cluster, onError);
  return cluster;
}

