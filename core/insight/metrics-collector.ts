import type { MikroORM } from '@mikro-orm/core';
import { PeriodicPass } from '../lib/periodic-pass.ts';
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { Config } from '../config/config.ts';
import { AggregateSql, bool, num, timeOf } from '../db/aggregate-sql.ts';
import { BackupTaskEntity } from '../db/entities/backup-task.ts';
import { nodeStatus } from '../agent-protocol/node-status.ts';
import { taskEvidence, evidenceOf, hoursSince, rtoStatus } from './task-evidence.ts';

const REFRESH_MS = 30_000;
const DAY_MS = 86_400_000;

/**
 * The state gauges of `/metrics` (the reference's set under Backplane's prefix): storage used
 * per target, node liveness and agent command queues per node, SLA and RTO task counts (app
 * info is set once by the metrics plugin). One periodic pass refreshes them from the database (every 30 s, as the reference), so a
 * scrape never runs a query; run counters are counted where the runs end.
 */
export class MetricsCollector {
  readonly #orm: MikroORM;
  readonly #config: Config;
  readonly #log: FastifyBaseLogger;
  readonly #g: Record<string, Gauge<string>>;
  readonly #periodic: PeriodicPass<void>;

  constructor({
    orm,
    config,
    logger,
    metricsRegistry,
  }: { orm: MikroORM; config: Config; logger: FastifyBaseLogger; metricsRegistry: Registry }) {
    this.#orm = orm;
    this.#config = config;
    this.#log = logger;
    const registers = [metricsRegistry];
    const gauge = (name: string, help: string, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers });
    this.#g = {
      storageUsed: gauge('backplane_storage_used_bytes', 'Bytes of artifacts held on each storage target', [
        'target',
        'type',
      ]),
      nodeOnline: gauge('backplane_node_online', '1 when the node is online (the master always is)', ['node', 'role']),
      queueDepth: gauge('backplane_agent_command_queue_depth', 'Agent commands waiting for their node', ['node']),
      commandsRunning: gauge(
        'backplane_agent_command_running',
        'Agent commands claimed by their node and not finished',
        ['node'],
      ),
      commandTimeouts: gauge(
        'backplane_agent_command_timeouts',
        'Agent commands the master took back in the last 24 hours (lease lapsed)',
        ['node'],
      ),
      slaBreach: gauge('backplane_sla_breach_tasks', 'Enabled tasks whose last success is older than their RPO'),
      rtoExceeded: gauge(
        'backplane_rto_exceeded_tasks',
        'Enabled tasks whose last measured restore exceeded their RTO',
      ),
      rtoUnmeasured: gauge(
        'backplane_rto_unmeasured_tasks',
        'Enabled tasks with an RTO and no recent deep verification measuring it',
      ),
      refreshed: gauge('backplane_metrics_refreshed_timestamp_seconds', 'When these gauges were last refreshed'),
    };
    this.#periodic = new PeriodicPass(
      (now) => this.#refresh(now),
      (err: unknown) => this.#log.error({ err }, 'metrics refresh failed'),
    );
  }

  start(): void {
    this.#periodic.start(REFRESH_MS, { immediately: true });
  }

  async stop(): Promise<void> {
    await this.#periodic.stop();
  }

  /** One refresh (concurrent calls share it). */
  refresh(now = new Date()): Promise<void> {
    return this.#periodic.runOnce(now);
  }

  async #refresh(now: Date): Promise<void> {
    const em = this.#orm.em.fork();
    const sql = new AggregateSql(em);
    const [storage, nodes, commands, tasks, evidence] = await Promise.all([
      sql.rows(`select t.name, t.type, coalesce(sum(c.file_size), 0) as bytes from storage_targets t
        left join backup_record_copies c on c.storage_target_id = t.id and c.status = 'success' group by t.id, t.name, t.type`),
      // Rows, not entities: at 10,000 nodes hydrating them every refresh held requests up (bench/agents.ts).
      sql.rows<{ id: number; name: string; is_local: unknown; last_seen_at: unknown }>(
        'select id, name, is_local, last_seen_at from nodes',
      ),
      sql.rows(
        `select node_id, sum(case when status = 'pending' then 1 else 0 end) as pending, sum(case when status = 'claimed' then 1 else 0 end) as claimed,
        sum(case when lost_at > ? then 1 else 0 end) as lost from agent_commands where status in ('pending', 'claimed') or lost_at > ? group by node_id`,
        [sql.time(new Date(now.getTime() - DAY_MS)), sql.time(new Date(now.getTime() - DAY_MS))],
      ),
      em.find(
        BackupTaskEntity,
        { enabled: true, $or: [{ slaHoursRpo: { $gt: 0 } }, { rtoMinutes: { $gt: 0 } }] },
        { fields: ['id', 'slaHoursRpo', 'rtoMinutes', 'createdAt'] },
      ),
      taskEvidence(em),
    ]);
    const g = this.#g;
    g.storageUsed!.reset();
    for (const s of storage) g.storageUsed!.set({ target: String(s.name), type: String(s.type) }, num(s.bytes));
    const byNode = new Map(commands.map((c) => [num(c.node_id), c]));
    for (const key of ['nodeOnline', 'queueDepth', 'commandsRunning', 'commandTimeouts']) g[key]!.reset();
    for (const row of nodes) {
      const n = { id: num(row.id), name: row.name, isLocal: bool(row.is_local), lastSeenAt: timeOf(row.last_seen_at) };
      g.nodeOnline!.set(
        { node: n.name, role: n.isLocal ? 'master' : 'agent' },
        n.isLocal || nodeStatus(n, this.#config.nodeOfflineSeconds, now.getTime()) === 'online' ? 1 : 0,
      );
      if (n.isLocal) continue;
      const c = byNode.get(n.id);
      g.queueDepth!.set({ node: n.name }, num(c?.pending));
      g.commandsRunning!.set({ node: n.name }, num(c?.claimed));
      g.commandTimeouts!.set({ node: n.name }, num(c?.lost));
    }
    const maxAge = this.#config.rtoEvidenceMaxAgeSeconds * 1000;
    let breach = 0;
    let exceeded = 0;
    let unmeasured = 0;
    for (const t of tasks) {
      const e = evidenceOf(evidence, t.id);
      if (t.slaHoursRpo > 0 && hoursSince(e, t.createdAt, now) > t.slaHoursRpo) breach++;
      if (t.rtoMinutes > 0) {
        const status = rtoStatus(t.rtoMinutes, e, maxAge, now).status;
        if (status === 'exceeded') exceeded++;
        if (status === 'unmeasured') unmeasured++;
      }
    }
    g.slaBreach!.set(breach);
    g.rtoExceeded!.set(exceeded);
    g.rtoUnmeasured!.set(unmeasured);
    g.refreshed!.set(now.getTime() / 1000);
  }
}
