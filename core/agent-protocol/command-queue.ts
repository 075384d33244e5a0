import { EventEmitter } from 'node:events';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import { AgentCommandEntity, type AgentCommand, type CommandType } from '../db/entities/agent-command.ts';
import type { SecretBox } from '../security/secret-box.ts';
import type { ClaimedCommand } from './wire.ts';
import type { Clock } from '../lib/clock.ts';
import { AggregateSql } from '../db/aggregate-sql.ts';

const SECRETS_AAD = 'agent_commands.secrets';

export type RecordKind = 'backup' | 'restore' | '';

export interface NewCommand {
  nodeId: number;
  type: CommandType;
  payload: Record<string, unknown>;
  recordKind?: RecordKind;
  recordId?: number;
  /** Fields the agent needs but the table must not hold in clear (a password): sealed at rest, handed out with the claim. */
  secrets?: Record<string, unknown>;
}

/** The claim as the poll reply carries it (the agent wire). */
export type { ClaimedCommand } from './wire.ts';

export type ResultOutcome =
  | { kind: 'applied' | 'repeated'; command: AgentCommand }
  | { kind: 'forbidden' | 'not_found' | 'not_claimed' };

/**
 * The master's side of the command queue. A claim is a conditional update (`status = pending`
 * and the attempt count read with it), so two pollers can never both win the same command, on
 * SQLite or PostgreSQL, in one process or several. Leases are absolute times, renewed by the
 * agent's heartbeats and updates; `LeaseMonitor` settles the ones that lapse.
 */
export class CommandQueue {
  readonly #orm: MikroORM;
  readonly #box: SecretBox;
  readonly #leaseMs: number;
  readonly #clock: Clock;
  /** In-process wake-ups for RPC waiters; they also re-read the table, so several masters work. */
  readonly #settled = new EventEmitter();

  constructor({
    orm,
    secretBox,
    config,
    clock,
  }: { orm: MikroORM; secretBox: SecretBox; config: { commandLeaseSeconds: number }; clock: Clock }) {
    this.#orm = orm;
    this.#clock = clock;
    this.#box = secretBox;
    this.#leaseMs = config.commandLeaseSeconds * 1000;
    this.#settled.setMaxListeners(0);
  }

  get leaseSeconds(): number {
    return this.#leaseMs / 1000;
  }

  /** Adds a command in `em`'s unit of work (flushed with the record it drives, atomically). */
  add(em: EntityManager, c: NewCommand): AgentCommand {
    return em.create(AgentCommandEntity, {
      nodeId: c.nodeId,
      type: c.type,
      status: 'pending',
      payload: JSON.stringify(c.payload),
      recordKind: c.recordKind ?? '',
      recordId: c.recordId ?? 0,
      secrets: c.secrets ? this.#box.seal(JSON.stringify(c.secrets), SECRETS_AAD) : '',
    });
  }

  async enqueue(c: NewCommand): Promise<AgentCommand> {
    const em = this.#orm.em.fork();
    const command = this.add(em, c);
    await em.flush();
    return command;
  }

  /** Claims the node's oldest pending command, or returns null. */
  async claim(nodeId: number): Promise<ClaimedCommand | null> {
    // Hand-written statements: every agent polls every few seconds, and nearly every poll finds
    // nothing (see AggregateSql for the cost of the ORM's findOne here).
    const sql = new AggregateSql(this.#orm.em.fork());
    for (let round = 0; round < 5; round++) {
      const [next] = await sql.rows<{ id: number; attempts: number; type: string; payload: string; secrets: string }>(
        "select id, attempts, type, payload, secrets from agent_commands where node_id = ? and status = 'pending' order by id limit 1",
        [nodeId],
      );
      if (!next) return null;
      const now = this.#clock.now();
      const attempts = Number(next.attempts);
      const won = await sql.run(
        "update agent_commands set status = 'claimed', attempts = ?, claimed_at = ?, lease_expires_at = ? where id = ? and status = 'pending' and attempts = ?",
        [attempts + 1, sql.time(now), sql.time(new Date(now.getTime() + this.#leaseMs)), next.id, attempts],
      );
      if (won === 1) {
        const secrets = next.secrets
          ? (JSON.parse(this.#box.open(next.secrets, SECRETS_AAD)) as Record<string, unknown>)
          : {};
        return {
          id: Number(next.id),
          type: next.type as ClaimedCommand['type'],
          payload: { ...(JSON.parse(next.payload) as Record<string, unknown>), ...secrets },
          attempt: attempts + 1,
          leaseSeconds: this.leaseSeconds,
        };
      }
      // Another poller took it between our read and write: look again.
    }
    return null;
  }

  /**
   * Renews the node's claimed commands: those in `inFlight` when the agent lists them (a command
   * it no longer mentions lapses with its lease; a claim still on its way to the agent is listed
   * at the next heartbeat), all of them otherwise. A `starting` agent holds nothing:
   * everything the node had claimed is returned, to be settled as abandoned.
   */
  async renew(nodeId: number, inFlight?: number[], starting = false): Promise<AgentCommand[]> {
    const em = this.#orm.em.fork();
    if (starting) {
      // Nearly always nothing: a bound statement first (every agent of a restarted fleet sends this at once).
      const [held] = await new AggregateSql(em).rows(
        "select id from agent_commands where node_id = ? and status = 'claimed' limit 1",
        [nodeId],
      );
      return held ? em.find(AgentCommandEntity, { nodeId, status: 'claimed' }) : [];
    }
    const lease = new Date(this.#clock.now().getTime() + this.#leaseMs);
    const listed = inFlight === undefined ? {} : { id: { $in: inFlight } };
    if (inFlight?.length !== 0)
      await em.nativeUpdate(AgentCommandEntity, { nodeId, status: 'claimed', ...listed }, { leaseExpiresAt: lease });
    return [];
  }

  /**
   * Renews the lease of the node's command driving a record (any update from the agent proves it
   * alive), and with `started` marks it under way. False when the node no longer holds it (the
   * master took the claim back, or it was settled): the agent's work is stale.
   */
  async touch(nodeId: number, kind: RecordKind, recordId: number, started = false): Promise<boolean> {
    const now = this.#clock.now();
    const changes = { leaseExpiresAt: new Date(now.getTime() + this.#leaseMs), ...(started ? { startedAt: now } : {}) };
    return (
      (await this.#orm.em
        .fork()
        .nativeUpdate(AgentCommandEntity, { nodeId, recordKind: kind, recordId, status: 'claimed' }, changes)) > 0
    );
  }

  /** Applies an agent's result: only the owning node, only while claimed; a repeat is answered again. */
  async complete(
    nodeId: number,
    id: number,
    r: { success: boolean; error?: string; result?: unknown },
  ): Promise<ResultOutcome> {
    const em = this.#orm.em.fork();
    const command = await em.findOne(AgentCommandEntity, { id });
    if (!command) return { kind: 'not_found' };
    if (command.nodeId !== nodeId) return { kind: 'forbidden' };
    const status = r.success ? 'succeeded' : 'failed';
    if (command.status === status) return { kind: 'repeated', command };
    if (command.status !== 'claimed') return { kind: 'not_claimed' };
    const won = await em.nativeUpdate(
      AgentCommandEntity,
      { id, status: 'claimed' },
      {
        status,
        completedAt: this.#clock.now(),
        leaseExpiresAt: null,
        secrets: '',
        error: (r.error ?? '').slice(0, 4000),
        result: r.result === undefined ? '' : JSON.stringify(r.result).slice(0, 1_000_000),
      },
    );
    if (won !== 1) return { kind: 'not_claimed' };
    command.status = status; // what the update above stored; the fork is not flushed again
    this.#settled.emit(String(id));
    return { kind: 'applied', command };
  }

  /** Settles a command from the master's side (lease lapsed, record ended). */
  async settle(id: number, status: 'failed' | 'succeeded', error: string): Promise<boolean> {
    const won = await this.#orm.em
      .fork()
      .nativeUpdate(
        AgentCommandEntity,
        { id, status: { $in: ['pending', 'claimed'] } },
        { status, error: error.slice(0, 4000), completedAt: this.#clock.now(), leaseExpiresAt: null, secrets: '' },
      );
    if (won === 1) this.#settled.emit(String(id));
    return won === 1;
  }

  /** Puts a claimed command back in the queue (its agent vanished before it started). */
  async requeue(id: number): Promise<boolean> {
    return (
      (await this.#orm.em
        .fork()
        .nativeUpdate(
          AgentCommandEntity,
          { id, status: 'claimed', startedAt: null },
          { status: 'pending', claimedAt: null, leaseExpiresAt: null, lostAt: this.#clock.now() },
        )) === 1
    );
  }

  /** Fails a claimed command its agent lost (lease lapsed, agent restarted). */
  async failLost(id: number, error: string): Promise<boolean> {
    const now = this.#clock.now();
    const won = await this.#orm.em.fork().nativeUpdate(
      AgentCommandEntity,
      { id, status: 'claimed' },
      {
        status: 'failed',
        error: error.slice(0, 4000),
        completedAt: now,
        leaseExpiresAt: null,
        lostAt: now,
        secrets: '',
      },
    );
    if (won === 1) this.#settled.emit(String(id));
    return won === 1;
  }

  /** Open commands driving a record (normally one). */
  async openFor(kind: RecordKind, recordId: number): Promise<AgentCommand[]> {
    return this.#orm.em
      .fork()
      .find(AgentCommandEntity, { recordKind: kind, recordId, status: { $in: ['pending', 'claimed'] } });
  }

  async expired(now: Date): Promise<AgentCommand[]> {
    return this.#orm.em
      .fork()
      .find(
        AgentCommandEntity,
        { status: 'claimed', leaseExpiresAt: { $lt: now } },
        { orderBy: { id: 'asc' }, limit: 500 },
      );
  }

  async get(id: number): Promise<AgentCommand | null> {
    return this.#orm.em.fork().findOne(AgentCommandEntity, { id });
  }

  /** A master that was down could not renew anything: every claimed lease starts afresh. */
  async extendAll(): Promise<number> {
    return this.#orm.em
      .fork()
      .nativeUpdate(
        AgentCommandEntity,
        { status: 'claimed' },
        { leaseExpiresAt: new Date(this.#clock.now().getTime() + this.#leaseMs) },
      );
  }

  /** Waits for a command to be settled (RPCs such as a directory listing), up to `timeoutMs`. */
  async waitFor(id: number, timeoutMs: number, signal?: AbortSignal): Promise<AgentCommand | null> {
    const clock = this.#clock;
    const deadline = clock.now().getTime() + timeoutMs;
    while (clock.now().getTime() < deadline && !signal?.aborted) {
      const command = await this.get(id);
      if (!command || (command.status !== 'pending' && command.status !== 'claimed')) return command;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clock.clearTimeout(timer);
          this.#settled.off(String(id), done);
          resolve();
        };
        const timer = clock.setTimeout(done, Math.min(500, Math.max(0, deadline - clock.now().getTime())));
        this.#settled.once(String(id), done);
      });
    }
    return this.get(id);
  }
}
