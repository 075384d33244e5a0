import { createContainer, asValue, asClass, asFunction, InjectionMode, type AwilixContainer } from 'awilix';
import type { MikroORM, EntityManager } from '@mikro-orm/core';
import type { Config } from './config/config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { SecretBox } from './security/secret-box.ts';
import { deriveKey } from './security/master-key.ts';
import { SessionTokens } from './auth/jwt.ts';
import { LoginLimiter, type LoginLimits } from './auth/login-limiter.ts';
import { AgentTokenCache } from './auth/agent-token-cache.ts';
import { AuditWriter } from './events/audit-writer.ts';
import { EventBus } from './events/event-bus.ts';
import type { Cluster } from './db/cluster.ts';
import { DeadMasters } from './runs/dead-masters.ts';
import { ProviderRegistry } from './plugin-host/registry.ts';
import type { StorageType, NotifierType, DatabaseDriverType } from '@backplane/plugin-api';
import type { LoadedPlugin } from './plugin-host/load.ts';
import { UserService } from './features/users/user-service.ts';
import { ApiKeyService } from './features/api-keys/api-key-service.ts';
import { SettingsService } from './features/settings/settings-service.ts';
import { AuthService } from './features/auth/auth-service.ts';
import { AccountSecurityService } from './features/auth/account-security-service.ts';
import { DashboardService } from './features/dashboard/dashboard-service.ts';
import { AuditQuery } from './features/audit/audit-query.ts';
import { StorageTargetOpener } from './storage/target-opener.ts';
import { StorageTargetService } from './features/storage-targets/storage-target-service.ts';
import { StorageOAuthFlow } from './features/storage-targets/oauth-flow.ts';
import { BackupTaskService } from './features/backup-tasks/backup-task-service.ts';
import { TaskTemplateService } from './features/task-templates/task-template-service.ts';
import { NodeService } from './features/nodes/node-service.ts';
import { InstallService } from './features/install/install-service.ts';
import type { FastifyBaseLogger } from 'fastify';
import { Registry } from 'prom-client';
import { BackupMetrics } from './metrics/backup-metrics.ts';
import { RecordLogHub } from './backup/record-log.ts';
import { BackupExecutor } from './backup/backup-executor.ts';
import { RecordDeleter } from './backup/record-deleter.ts';
import { RetentionService } from './backup/retention-service.ts';
import { BackupRuns } from './runs/backup-runs.ts';
import { BackupScheduler } from './runs/scheduler.ts';
import { BackupCancel } from './runs/backup-cancel.ts';
import { RunTimeLimits } from './runs/run-time-limits.ts';
import { RestoreService } from './recovery/restore-service.ts';
import { VerifyService } from './recovery/verify-service.ts';
import { ReplicationService } from './recovery/replication-service.ts';
import type { AgeKeyPair } from './engine/age-identity.ts';
import { BackupRecordService } from './features/backup-records/backup-record-service.ts';
import { CommandQueue } from './agent-protocol/command-queue.ts';
import { RemoteBackups } from './runs/remote-backups.ts';
import { RemoteRestores } from './runs/remote-restores.ts';
import { LeaseMonitor } from './runs/lease-monitor.ts';
import { StorageHealthMonitor } from './storage/storage-health.ts';
import { TemporarySweep } from './storage/temporary-sweep.ts';
import { AuditRetention } from './events/audit-retention.ts';
import { AuditWebhook } from './events/audit-webhook.ts';
import { NotifierOpener } from './notifications/notifier-opener.ts';
import { NotificationSender } from './notifications/notification-sender.ts';
import { Alerts } from './notifications/alerts.ts';
import { DeliveryWorker } from './notifications/delivery-worker.ts';
import { NotificationMetrics } from './metrics/notification-metrics.ts';
import { RecoveryMetrics } from './metrics/recovery-metrics.ts';
import { NodeMonitor } from './agent-protocol/node-monitor.ts';
import { SlaScan } from './backup/sla-scan.ts';
import { HeartbeatWriter } from './agent-protocol/heartbeat-writer.ts';
import { MetricsCollector } from './insight/metrics-collector.ts';
import { NotificationChannelService } from './features/notifications/notification-service.ts';

/** Singletons: one per app instance. */
export interface AppCradle {
  agentTokens: AgentTokenCache;
  config: Config;
  /** Time for leases and schedules; tests pass one they advance. */
  clock: Clock;
  orm: MikroORM;
  secretBox: SecretBox;
  sessionTokens: SessionTokens;
  loginLimiter: LoginLimiter;
  audit: AuditWriter;
  events: EventBus;
  /** The masters sharing the database, as this one sees them (registered by app.ts once the logger exists). */
  cluster: Cluster;
  /** This master's id: its boot number (core/db/cluster.ts). */
  masterId: number;
  deadMasters: DeadMasters;
  storageTypes: ProviderRegistry<StorageType>;
  notifierTypes: ProviderRegistry<NotifierType>;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  plugins: LoadedPlugin[];
  startedAt: Date;
  logger: FastifyBaseLogger;
  storageOpener: StorageTargetOpener;
  metricsRegistry: Registry;
  backupMetrics: BackupMetrics;
  /** The installation's age key pair; only `recipient` ever leaves the master. */
  ageKeys: AgeKeyPair;
  ageRecipient: string;
  recordLogs: RecordLogHub;
  backupExecutor: BackupExecutor;
  recordDeleter: RecordDeleter;
  retention: RetentionService;
  backupRuns: BackupRuns;
  scheduler: BackupScheduler;
  restoreLogs: RecordLogHub;
  verifyLogs: RecordLogHub;
  restores: RestoreService;
  verifications: VerifyService;
  replications: ReplicationService;
  commandQueue: CommandQueue;
  heartbeatWriter: HeartbeatWriter;
  remoteBackups: RemoteBackups;
  remoteRestores: RemoteRestores;
  leaseMonitor: LeaseMonitor;
  backupCancel: BackupCancel;
  runTimeLimits: RunTimeLimits;
  /** The settings' current values, read in a job scope (for singletons, which cannot hold `settings`). */
  readSettings: () => Promise<Record<string, string>>;
  /** Drops expired storage authorisation drafts, in a job scope. */
  purgeOAuthDrafts: () => Promise<number>;
  storageHealth: StorageHealthMonitor;
  temporarySweep: TemporarySweep;
  auditRetention: AuditRetention;
  auditWebhook: AuditWebhook;
  notifierOpener: NotifierOpener;
  notificationSender: NotificationSender;
  /** Raises events: the notification outbox and the event bus. */
  alerts: Alerts;
  deliveryWorker: DeliveryWorker;
  notificationMetrics: NotificationMetrics;
  recoveryMetrics: RecoveryMetrics;
  nodeMonitor: NodeMonitor;
  slaScan: SlaScan;
  metricsCollector: MetricsCollector;
}

/** Per request (or per background job): the EntityManager fork and the services bound to it. */
export interface ScopeCradle {
  em: EntityManager;
  users: UserService;
  apiKeys: ApiKeyService;
  settings: SettingsService;
  auth: AuthService;
  accountSecurity: AccountSecurityService;
  dashboard: DashboardService;
  auditQuery: AuditQuery;
  storageTargets: StorageTargetService;
  storageOAuth: StorageOAuthFlow;
  backupTasks: BackupTaskService;
  backupRecords: BackupRecordService;
  taskTemplates: TaskTemplateService;
  nodes: NodeService;
  installs: InstallService;
  notificationChannels: NotificationChannelService;
}

export type Cradle = AppCradle & ScopeCradle;

declare module '@fastify/awilix' {
  interface Cradle extends AppCradle {}
  interface RequestCradle extends ScopeCradle {}
}

/**
 * A fresh container per app instance (never awilix's module-level default, which would leak
 * between test apps), in strict mode so a singleton can never capture a request's scope.
 */
export function createAppContainer(options: { config: Config; orm: MikroORM; masterKey: Buffer; ageKeys: AgeKeyPair; bootEpoch: number; loginLimits?: LoginLimits; clock?: Clock }): AwilixContainer<Cradle> {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    config: asValue(options.config),
    clock: asValue(options.clock ?? systemClock),
    orm: asValue(options.orm),
    secretBox: asValue(new SecretBox(deriveKey(options.masterKey, 'secrets'))),
    sessionTokens: asValue(new SessionTokens(deriveKey(options.masterKey, 'jwt'), options.config.jwtTtlSeconds)),
    loginLimiter: asValue(new LoginLimiter(options.loginLimits)),
    agentTokens: asValue(new AgentTokenCache()),
    audit: asClass(AuditWriter).singleton(),
    events: asValue(new EventBus(options.bootEpoch)),
    masterId: asValue(options.bootEpoch),
    storageTypes: asValue(new ProviderRegistry<StorageType>('storage')),
    notifierTypes: asValue(new ProviderRegistry<NotifierType>('notifier')),
    databaseDrivers: asValue(new ProviderRegistry<DatabaseDriverType>('database')),
    plugins: asValue([]),
    startedAt: asValue(new Date()),
    users: asClass(UserService).scoped(),
    apiKeys: asClass(ApiKeyService).scoped(),
    settings: asClass(SettingsService).scoped(),
    auth: asClass(AuthService).scoped(),
    accountSecurity: asClass(AccountSecurityService).scoped(),
    dashboard: asClass(DashboardService).scoped(),
    auditQuery: asClass(AuditQuery).scoped(),
    storageOpener: asClass(StorageTargetOpener).singleton(),
    storageTargets: asClass(StorageTargetService).scoped(),
    storageOAuth: asClass(StorageOAuthFlow).scoped(),
    backupTasks: asClass(BackupTaskService).scoped(),
    backupRecords: asClass(BackupRecordService).scoped(),
    taskTemplates: asClass(TaskTemplateService).scoped(),
    nodes: asClass(NodeService).scoped(),
    installs: asClass(InstallService).scoped(),
    metricsRegistry: asValue(new Registry()),
    backupMetrics: asClass(BackupMetrics).singleton(),
    ageKeys: asValue(options.ageKeys),
    ageRecipient: asValue(options.ageKeys.recipient),
    recordLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'backup')).singleton(),
    backupExecutor: asClass(BackupExecutor).singleton(),
    recordDeleter: asClass(RecordDeleter).singleton(),
    retention: asClass(RetentionService).singleton(),
    backupRuns: asClass(BackupRuns).singleton(),
    scheduler: asClass(BackupScheduler).singleton(),
    restoreLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'restore')).singleton(),
    verifyLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'verify')).singleton(),
    restores: asClass(RestoreService).singleton(),
    verifications: asClass(VerifyService).singleton(),
    replications: asClass(ReplicationService).singleton(),
    commandQueue: asClass(CommandQueue).singleton(),
    heartbeatWriter: asClass(HeartbeatWriter).singleton(),
    remoteBackups: asClass(RemoteBackups).singleton(),
    remoteRestores: asClass(RemoteRestores).singleton(),
    leaseMonitor: asClass(LeaseMonitor).singleton(),
    backupCancel: asClass(BackupCancel).singleton(),
    deadMasters: asClass(DeadMasters).singleton(),
    runTimeLimits: asClass(RunTimeLimits).singleton(),
    readSettings: asValue(() => inJobScope(container, (cradle) => cradle.settings.values())),
    purgeOAuthDrafts: asValue(() => inJobScope(container, (cradle) => cradle.storageOAuth.purge())),
    storageHealth: asClass(StorageHealthMonitor).singleton(),
    temporarySweep: asClass(TemporarySweep).singleton(),
    auditRetention: asClass(AuditRetention).singleton(),
    auditWebhook: asClass(AuditWebhook).singleton(),
    notifierOpener: asClass(NotifierOpener).singleton(),
    notificationSender: asClass(NotificationSender).singleton(),
    alerts: asClass(Alerts).singleton(),
    deliveryWorker: asFunction((deps: ConstructorParameters<typeof DeliveryWorker>[0]) => new DeliveryWorker(deps)).singleton(),
    notificationMetrics: asClass(NotificationMetrics).singleton(),
    recoveryMetrics: asClass(RecoveryMetrics).singleton(),
    nodeMonitor: asClass(NodeMonitor).singleton(),
    slaScan: asClass(SlaScan).singleton(),
    metricsCollector: asClass(MetricsCollector).singleton(),
    notificationChannels: asClass(NotificationChannelService).scoped(),
  });
  return container;
}

/** A scope for background work: its own EntityManager fork, disposed by the caller. */
export function createJobScope(container: AwilixContainer<Cradle>): AwilixContainer<Cradle> {
  const scope = container.createScope();
  scope.register({ em: asValue(container.cradle.orm.em.fork()) });
  return scope;
}

/** Runs scoped services' work for a singleton: a job scope around `work`, disposed after. */
async function inJobScope<T>(container: AwilixContainer<Cradle>, work: (cradle: Cradle) => Promise<T>): Promise<T> {
  const scope = createJobScope(container);
  try {
    return await work(scope.cradle);
  } finally {
    await scope.dispose();
  }
}
