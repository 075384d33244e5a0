import type { Repositories } from '../backup/repositories.ts';
import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { StorageTargetOpener } from '../storage/target-opener.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { type ProviderRegistry, type AgeKeyPair, driverFor, driverConfig } from '../engine/index.ts';
import type { DatabaseDriverType, DatabaseDriverInstance } from '@backplane/plugin-api';
import type { EventBus } from '../events/event-bus.ts';
import type { Alerts } from '../notifications/alerts.ts';
import type { RecordLogHub } from '../backup/record-log.ts';
import type { Config } from '../config/config.ts';
import type { BackupTask } from '../db/entities/backup-task.ts';
import type { CommandQueue } from '../agent-protocol/command-queue.ts';
import { DB_PASSWORD_AAD } from '../backup/task-spec.ts';

import type { RecoveryMetrics } from '../metrics/recovery-metrics.ts';

export interface RecoveryDeps {
  orm: MikroORM;
  storageOpener: StorageTargetOpener;
  secretBox: SecretBox;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
  events: EventBus;
  alerts: Alerts;
  recoveryMetrics: RecoveryMetrics;
  restoreLogs: RecordLogHub;
  verifyLogs: RecordLogHub;
  ageKeys: AgeKeyPair;
  config: Config;
  commandQueue: CommandQueue;
  logger: FastifyBaseLogger;
  /** This master's id (records it runs carry it: core/db/cluster.ts). */
  masterId: number;
  repositories: Repositories;
}

/** The driver type and a live instance for a task's database, with its unsealed password. */
export async function openDriver(
  deps: RecoveryDeps,
  task: BackupTask,
): Promise<{ type: DatabaseDriverType; instance: DatabaseDriverInstance }> {
  const type = driverFor(deps.databaseDrivers.list(), task.type);
  if (!type) throw new Error(`no database driver is installed for type "${task.type}"`);
  const password = task.dbPassword ? deps.secretBox.open(task.dbPassword, DB_PASSWORD_AAD) : '';
  const instance = await type.create(driverConfig(type, task, password), deps.storageOpener.deps());
  return { type, instance };
}

export { humanBytes as human } from '../engine/index.ts';
