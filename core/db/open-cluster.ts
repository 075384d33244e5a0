import type { FastifyBaseLogger } from 'fastify';
import { databaseKind } from './orm.ts';
import { LocalCluster, type Cluster } from './cluster.ts';
import { PgCluster } from './pg-cluster.ts';

/**
 * The masters sharing the database: one on SQLite; on PostgreSQL any number, whose events and
 * live logs then travel through the database (LISTEN/NOTIFY) so every master's clients see them
 * (the event bus and the log hubs relay through it: their modules' lifecycles).
 */
export function openCluster(
  databaseUrl: string,
  ids: { masterId: number; numberFloor: number },
  log: FastifyBaseLogger,
): Cluster {
  const onError = (err: unknown): void => log.error({ err }, 'cluster notice failed');
  if (databaseKind(databaseUrl) === 'sqlite') return new LocalCluster(ids.masterId, onError);
  // Notices are numbered from the boot's floor: above every id of earlier boots (core/events/event-bus.ts).
  return new PgCluster({ url: databaseUrl, ...ids, onError, log });
}

/**
 * The lifecycle start of what relays through the cluster (the event bus, the record log hubs):
 * with several masters (PostgreSQL) what they publish travels as notices; alone, nothing to do.
 */
export function relayThroughCluster(
  hub: { relay(cluster: Cluster, onError: (err: unknown) => void): void },
  { cluster, logger }: { cluster: Cluster; logger: FastifyBaseLogger },
): void {
  if (cluster.shared) hub.relay(cluster, (err) => logger.error({ err }, 'cluster notice failed'));
}
