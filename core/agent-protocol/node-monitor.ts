import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import type { FastifyBaseLogger } from 'fastify';
import { NodeEntity } from '../db/entities/node.ts';
import { AggregateSql, timeOf } from '../db/aggregate-sql.ts';
import { VERSION } from '../engine/index.ts';
import type { Alerts } from '../notifications/alerts.ts';
import { nodeStatus } from './node-status.ts';

/** How often nodes are looked at: well inside the default 45 s offline threshold. */
const PASS_MS = 15_000;
const OUTDATED_PERIOD_MS = 24 * 3600_000;
/** Nodes per page of a pass (and so per UPDATE of their status: well under SQLite's bound-parameter limit). */
const PAGE = 500;

/** `[major, minor]` of a version such as `0.1.0` or `v1.2.3-rc1`; undefined when it is not one. */
export function majorMinor(version: string): [number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec(version.trim());
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Whether an agent's version is older than the master's in major or minor (patch releases are compatible). */
export function isOutdated(agentVersion: string, masterVersion = VERSION): boolean {
  const agent = majorMinor(agentVersion);
  const master = majorMinor(masterVersion);
  if (!agent || !master) return false;
  return agent[0] < master[0] || (agent[0] === master[0] && agent[1] < master[1]);
}

/**
 * Watches remote nodes: `node_offline` when an agent stops being heard from, `node_online` when
 * it is back, each once per transition (the status last announced is stored on the node, so a
 * restart neither repeats nor loses one); a node never seen is not news. And `agent_outdated`
 * when an agent runs an older major.minor than the master, at most once a day per node: from
 * this periodic pass rather than the heartbeat, so a busy agent costs no extra work per beat.
 */
export class NodeMonitor {
  readonly #orm: MikroORM;
  readonly #alerts: Alerts;
  readonly #offlineSeconds: number;
  readonly #log: FastifyBaseLogger;
  readonly #periodic: PeriodicPass<void>;

  constructor({
    orm,
    alerts,
    config,
    logger,
  }: { orm: MikroORM; alerts: Alerts; config: { nodeOfflineSeconds: number }; logger: FastifyBaseLogger }) {
    this.#orm = orm;
    this.#alerts = alerts;
    this.#offlineSeconds = config.nodeOfflineSeconds;
    this.#log = logger;
    this.#periodic = new PeriodicPass(
      (now) => this.#pass(now),
      (err: unknown) => this.#log.error({ err }, 'node monitor pass failed'),
    );
  }

  start(): void {
    this.#periodic.start(PASS_MS);
  }

  async stop(): Promise<void> {
    await this.#periodic.stop();
  }

  /** One pass over the remote nodes; overlapping calls share the pass in progress. */
  runOnce(now = new Date()): Promise<void> {
    return this.#periodic.runOnce(now);
  }

  /**
   * Only nodes whose status moved since it was last announced are read (as rows: hydrating
   * 10,000 entities after they all came online stalled requests for half a second), in pages
   * with a turn of the event loop between them (the embedded database answers synchronously),
   * and their new status is written by set-based updates: flushing once per node over every
   * node made a pass quadratic (at 5,000 agents coming online together, minutes of CPU;
   * bench/agents.ts).
   */
  async #pass(now: Date): Promise<void> {
    const em = this.#orm.em.fork();
    const sql = new AggregateSql(em);
    // online: heard from after `cutoff` (nodeStatus); a node never heard from and never announced is not news.
    const cutoff = sql.time(new Date(now.getTime() - this.#offlineSeconds * 1000));
    for (let after = 0; ; ) {
      const moved = (
        await sql.rows<NodeRow>(
          `select ${WATCHED_COLUMNS} from nodes
          where is_local = ? and id > ? and ((alert_status <> 'online' and last_seen_at > ?) or (alert_status <> 'offline' and last_seen_at <= ?)
            or (alert_status not in ('offline', '') and last_seen_at is null))
          order by id limit ?`,
          [false, after, cutoff, cutoff, PAGE],
        )
      ).map(watchedNode);
      await this.#record(em, moved, now);
      if (moved.length < PAGE) break;
      after = moved.at(-1)!.id;
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Outdated agents among the online ones; agents on the master's own version need no look.
    const online = (
      await sql.rows<NodeRow>(
        `select ${WATCHED_COLUMNS} from nodes where is_local = ? and last_seen_at > ? and agent_version <> ? order by id`,
        [false, cutoff, VERSION],
      )
    ).map(watchedNode);
    for (const node of online) {
      if (!isOutdated(node.agentVersion)) continue;
      await this.#alerts.raiseOnce(
        {
          type: 'agent_outdated',
          subject: `node:${node.id}`,
          linkPath: `/api/nodes/${node.id}`,
          title: `Agent on "${node.name}" is outdated (${node.agentVersion} < ${VERSION})`,
          body: `The agent on node "${node.name}" runs version ${node.agentVersion}; the master runs ${VERSION}. Update the agent.`,
          fields: { nodeId: node.id, nodeName: node.name, agentVersion: node.agentVersion, masterVersion: VERSION },
        },
        OUTDATED_PERIOD_MS,
        now,
      );
    }
  }

  /** Stores the new status of nodes whose status moved, then announces the transitions. */
  async #record(em: EntityManager, moved: WatchedNode[], now: Date): Promise<void> {
    const announcements: { node: WatchedNode; status: 'online' | 'offline'; announced: string }[] = [];
    for (const node of moved) {
      const status = nodeStatus(node, this.#offlineSeconds, now.getTime());
      const announced = node.alertStatus;
      if (status === announced || (announced === '' && !node.lastSeenAt)) continue;
      announcements.push({ node, status, announced });
    }
    // Stored before anything is announced: a restart in between loses an alert rather than repeating it.
    for (const status of ['online', 'offline'] as const) {
      const ids = announcements.filter((a) => a.status === status).map((a) => a.node.id);
      if (ids.length > 0) await em.nativeUpdate(NodeEntity, { id: { $in: ids } }, { alertStatus: status });
    }
    for (const { node, status, announced } of announcements) {
      // The first sighting of a new node is recorded, not announced.
      if (announced !== '' || status === 'offline') await this.#alerts.notify(transition(node, status));
    }
  }
}

/** What a pass reads of a node (the columns of NodeRow). */
const WATCHED_COLUMNS = 'id, name, alert_status, last_seen_at, agent_version';

interface NodeRow {
  id: number;
  name: string;
  alert_status: string;
  last_seen_at: unknown;
  agent_version: string;
}

/** What a pass needs of a node. */
interface WatchedNode {
  id: number;
  name: string;
  alertStatus: string;
  lastSeenAt: Date | null;
  agentVersion: string;
}

function watchedNode(row: NodeRow): WatchedNode {
  return {
    id: Number(row.id),
    name: row.name,
    alertStatus: row.alert_status,
    lastSeenAt: timeOf(row.last_seen_at),
    agentVersion: row.agent_version,
  };
}

function transition(node: WatchedNode, status: 'online' | 'offline') {
  const offline = status === 'offline';
  return {
    type: offline ? 'node_offline' : 'node_online',
    subject: `node:${node.id}`,
    linkPath: `/api/nodes/${node.id}`,
    title: offline ? `Node "${node.name}" is offline` : `Node "${node.name}" is back online`,
    body: offline
      ? `Its agent was last heard from at ${node.lastSeenAt?.toISOString() ?? 'never'}.`
      : `Its agent reported at ${node.lastSeenAt?.toISOString() ?? ''}.`,
    fields: {
      nodeId: node.id,
      nodeName: node.name,
      lastSeenAt: node.lastSeenAt?.toISOString() ?? null,
      agentVersion: node.agentVersion,
    },
  };
}
