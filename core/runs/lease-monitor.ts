import type { MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import { AgentCommandEntity, type AgentCommand } from '../db/entities/agent-command.ts';
import { BackupRecordEntity, TERMINAL_STATUSES } from '../db/entities/backup-record.ts';
import { RestoreRecordEntity } from '../db/entities/recovery-records.ts';
import { NodeEntity } from '../db/entities/node.ts';
import { nodeStatus } from '../agent-protocol/node-status.ts';
import type { CommandQueue } from '../agent-protocol/command-queue.ts';
import type { Clock, ClockTimer } from '../lib/clock.ts';
import type { RemoteBackups } from './remote-backups.ts';
import type { RemoteRestores } from './remote-restores.ts';

/** A command lost this many times before it started is failed rather than handed out again. */
const MAX_ATTEMPTS = 3;

/**
 * Settles commands whose agent went quiet, so no record stays queued or running for ever:
 * a lapsed lease on a command that never started puts it back in the queue; one that had
 * started fails its record (and removes what it stored). Pending commands of a node that has
 * been offline longer than a lease fail too. Runs every quarter lease (at most every 15 s).
 */
export class LeaseMonitor {
  readonly #orm: MikroORM;
  readonly #queue: CommandQueue;
  readonly #backups: RemoteBackups;
  readonly #restores: RemoteRestores;
  readonly #log: FastifyBaseLogger;
  readonly #leaseSeconds: number;
  readonly #offlineSeconds: number;
  readonly #clock: Clock;
  #timer: ClockTimer | undefined;
  #running = false;
  #sweeping: Promise<void> | undefined;

  constructor({
    orm,
    commandQueue,
    remoteBackups,
    remoteRestores,
    logger,
    config,
    clock,
  }: {
    orm: MikroORM;
    commandQueue: CommandQueue;
    remoteBackups: RemoteBackups;
    remoteRestores: RemoteRestores;
    logger: FastifyBaseLogger;
    config: { commandLeaseSeconds: number; nodeOfflineSeconds: number };
    clock: Clock;
  }) {
    this.#orm = orm;
    this.#clock = clock;
    this.#queue = commandQueue;
    this.#backups = remoteBackups;
    this.#restores = remoteRestores;
    this.#log = logger.child({ component: 'lease-monitor' });
    this.#leaseSeconds = config.commandLeaseSeconds;
    this.#offlineSeconds = config.nodeOfflineSeconds;
  }

  /** Start-up: leases restart (agents could not renew while the master was down), then sweeps begin. */
  async start(): Promise<void> {
    const extended = await this.#queue.extendAll();
    if (extended > 0)
      this.#log.info({ extended }, 'claimed agent commands survive the restart; their leases start afresh');
    this.#running = true;
    this.#arm();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#sweeping;
  }

  /** The next sweep, a fixed period after the last one began (like an interval, on the injected clock). */
  #arm(): void {
    if (!this.#running) return;
    const every = Math.max(1, Math.min(15, this.#leaseSeconds / 4)) * 1000;
    this.#timer = this.#clock.setTimeout(
      () => {
        this.#arm();
        return this.sweep();
      },
      every,
      { unref: true },
    );
  }

  /** One pass; concurrent calls share it. */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweep()
      .catch((err: unknown) => this.#log.error({ err }, 'lease sweep failed'))
      .finally(() => {
        this.#sweeping = undefined;
      });
    return this.#sweeping;
  }

  async #sweep(): Promise<void> {
    for (const command of await this.#queue.expired(this.#clock.now())) {
      await this.lost(command, `the agent stopped reporting for more than ${this.#leaseSeconds} s (its lease lapsed)`);
    }
    await this.#failStranded();
  }

  /** A command its agent no longer runs (lease lapsed, or the restarted agent did not list it). */
  async lost(command: AgentCommand, reason: string): Promise<void> {
    if (command.recordKind !== '' && (await this.#recordEnded(command))) {
      // The record was settled already; only the agent's result never came.
      await this.#queue.settle(command.id, 'failed', `${reason}; the record had already ended`);
      return;
    }
    if (
      command.recordKind !== '' &&
      command.startedAt === null &&
      command.attempts < MAX_ATTEMPTS &&
      (await this.#queue.requeue(command.id))
    ) {
      this.#log.warn(
        { commandId: command.id, nodeId: command.nodeId, attempt: command.attempts },
        `agent command re-queued: ${reason}`,
      );
      return;
    }
    if (!(await this.#queue.failLost(command.id, reason))) return;
    this.#log.warn(
      { commandId: command.id, nodeId: command.nodeId, type: command.type },
      `agent command failed: ${reason}`,
    );
    const why =
      command.startedAt === null && command.recordKind !== ''
        ? `${reason}; it was handed out ${command.attempts} times and never started`
        : reason;
    if (command.recordKind === 'backup') await this.#backups.fail(command.recordId, why);
    if (command.recordKind === 'restore') await this.#restores.fail(command.recordId, why);
  }

  async #recordEnded(command: AgentCommand): Promise<boolean> {
    const em = this.#orm.em.fork();
    const entity = command.recordKind === 'backup' ? BackupRecordEntity : RestoreRecordEntity;
    const record = await em.findOne(
      entity as typeof BackupRecordEntity,
      { id: command.recordId },
      { fields: ['status'] },
    );
    return !record || TERMINAL_STATUSES.includes(record.status);
  }

  /** Pending work for a node that has been gone longer than a lease will not be taken: fail it with the reason. */
  async #failStranded(): Promise<void> {
    const em = this.#orm.em.fork();
    const pending = await em.find(AgentCommandEntity, { status: 'pending' }, { limit: 500, orderBy: { id: 'asc' } });
    if (pending.length === 0) return;
    const nodes = new Map(
      (await em.find(NodeEntity, { id: { $in: [...new Set(pending.map((c) => c.nodeId))] } })).map((n) => [n.id, n]),
    );
    const graceMs = (this.#leaseSeconds + this.#offlineSeconds) * 1000;
    const now = this.#clock.now().getTime();
    for (const command of pending) {
      const node = nodes.get(command.nodeId);
      const waited = now - command.createdAt.getTime();
      if (node && (nodeStatus(node, this.#offlineSeconds, now) === 'online' || waited < graceMs)) continue;
      const reason = node
        ? `node "${node.name}" went offline before its agent took this command`
        : 'the node was deleted';
      if (!(await this.#queue.settle(command.id, 'failed', reason))) continue;
      if (command.recordKind === 'backup') await this.#backups.fail(command.recordId, reason);
      if (command.recordKind === 'restore') await this.#restores.fail(command.recordId, reason);
    }
  }
}
