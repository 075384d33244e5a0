import pg from 'pg';
import { LeadershipListeners, type Cluster, type ClusterChannel } from './cluster.ts';

/** The session advisory lock the leader holds (any constant every master shares). */
const LEADER_LOCK = '7261700118';
/** Class of the advisory locks saying "master n is alive" (two-key form: this class, the master's id). */
const ALIVE_CLASS = 726_170;
/** The transaction lock that puts numbered notices in the order of their numbers. */
const NUMBERED_LOCK = '7261700119';

export interface PgClusterOptions {
  url: string;
  masterId: number;
  /** How often a master checks its session and a follower tries to lead: a dead leader's successor leads within about this long. */
  checkMs?: number;
  /** Numbered notices get numbers above this (the shared sequence is raised to it at start, never lowered). */
  numberFloor: number;
  onError: (err: unknown) => void;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void };
}

/**
 * Several masters on one PostgreSQL database. Each master keeps one session of its own (a
 * `pg` client beside the ORM's pool: locks held by a session, and LISTEN, need the same
 * connection for as long as they last), on which it
 * - holds the advisory lock (ALIVE_CLASS, its id) for as long as it lives: `liveMasters` reads
 *   them from `pg_locks`, so a master that dies (SIGKILL, lost network) is dead to the others as
 *   soon as PostgreSQL closes its session, with no heartbeat table to go stale;
 * - tries, every `checkMs`, for the leader lock (`pg_try_advisory_lock`): one master holds it;
 *   when its session ends another master gets it at its next try;
 * - LISTENs to the cluster's channels.
 * A session that fails is replaced at the next check: this master stops leading at once, tells
 * `onSessionLost` listeners (its runs may already be settled by the leader as a dead master's),
 * and takes its locks again on the new session.
 *
 * Uses the `pg` driver that MikroORM's PostgreSQL driver itself runs on (the one exception to
 * "core persists through MikroORM", allowed in .dependency-cruiser.cjs): the ORM's pool neither
 * keeps a connection for a session lock nor delivers notifications.
 */
export class PgCluster implements Cluster {
  readonly masterId: number;
  readonly shared = true;
  readonly #options: PgClusterOptions;
  readonly #checkMs: number;
  readonly #leadership: LeadershipListeners;
  readonly #sessionLost: (() => void)[] = [];
  readonly #listeners = new Map<ClusterChannel, Set<(payload: string) => void>>();
  #client: pg.Client | undefined;
  #leader = false;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;
  #stopped = false;
  #queries: Promise<void> = Promise.resolve();

  constructor(options: PgClusterOptions) {
    this.#options = options;
    this.masterId = options.masterId;
    this.#checkMs = options.checkMs ?? 3000;
    this.#leadership = new LeadershipListeners(options.onError);
  }

  get leader(): boolean {
    return this.#leader;
  }

  onLeadership(listener: (leader: boolean) => Promise<void>): void {
    this.#leadership.add(listener);
  }

  onSessionLost(listener: () => void): void {
    this.#sessionLost.push(listener);
  }

  /** Opens the session (failing if the database cannot be reached), then checks every `checkMs`. */
  async start(): Promise<void> {
    this.#client = await this.#connect();
    await this.#run(
      "select setval('backplane_event_ids', greatest((select last_value from backplane_event_ids), $1::int8))",
      [this.#options.numberFloor],
    );
    await this.#check();
    this.#timer = setInterval(() => void this.#checkOnce(), this.#checkMs);
    this.#timer.unref();
  }

  /**
   * Ends the session: PostgreSQL releases its locks, another master leads at its next check.
   * Leadership listeners are not called: the caller has stopped its leader's work before.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#checking;
    const client = this.#client;
    this.#client = undefined;
    this.#leader = false;
    await client?.end().catch(() => undefined);
  }

  async liveMasters(): Promise<number[]> {
    const { rows } = await this.#run<{ id: string }>(
      `select objid::int8 as id from pg_locks where locktype = 'advisory' and classid = $1 and objsubid = 2 and granted
         and database = (select oid from pg_database where datname = current_database())`,
      [ALIVE_CLASS],
    );
    return rows.map((r) => Number(r.id));
  }

  async notify(channel: ClusterChannel, payload: string): Promise<void> {
    await this.#run('select pg_notify($1, $2)', [channel, payload]);
  }

  async notifyNumbered(channel: ClusterChannel, payload: string): Promise<void> {
    const client = this.#session();
    // One round trip (the simple protocol runs several statements), in a transaction holding a
    // lock: numbers are taken in the order of the commits, which is the order of delivery.
    try {
      await this.#run(
        `begin; select pg_advisory_xact_lock(${NUMBERED_LOCK}); ` +
          `select pg_notify(${client.escapeLiteral(channel)}, nextval('backplane_event_ids')::text || ':' || ${client.escapeLiteral(payload)}); commit`,
      );
    } catch (err) {
      // A statement that failed leaves the transaction open and aborted: end it, or the session stays unusable.
      await this.#run('rollback').catch(() => undefined);
      throw err;
    }
  }

  listen(channel: ClusterChannel, listener: (payload: string) => void): () => void {
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
      // The channel is listened to on the session from now on (and on every later one, #connect).
      if (this.#client) void this.#run(`listen ${channel}`).catch(this.#options.onError);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  #session(): pg.Client {
    if (!this.#client) throw new Error('this master has no database session right now (reconnecting)');
    return this.#client;
  }

  /** A query on the current session, one at a time (pg refuses overlapping queries on one client from version 9). */
  #run<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<pg.QueryResult<R>> {
    const turn = this.#queries.then(() => this.#session().query<R>(text, params));
    this.#queries = turn.then(
      () => undefined,
      () => undefined,
    );
    return turn;
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.#options.url,
      application_name: `backplane-master-${this.masterId}`,
      keepAlive: true,
      query_timeout: 15_000,
    });
    client.on('notification', (msg) => {
      for (const listener of this.#listeners.get(msg.channel as ClusterChannel) ?? []) {
        try {
          listener(msg.payload ?? '');
        } catch (err) {
          this.#options.onError(err);
        }
      }
    });
    // 'error' without a listener would crash the process; the next check replaces the session.
    client.on('error', () => void this.#lost(client));
    client.on('end', () => void this.#lost(client));
    await client.connect();
    try {
      const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock($1, $2) as ok', [
        ALIVE_CLASS,
        this.masterId,
      ]);
      if (!rows[0]?.ok) throw new Error(`master ${this.masterId}'s alive lock is held by another session`);
      for (const channel of this.#listeners.keys()) await client.query(`listen ${channel}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    return client;
  }

  #checkOnce(): Promise<void> {
    this.#checking ??= this.#check()
      .catch(this.#options.onError)
      .finally(() => {
        this.#checking = undefined;
      });
    return this.#checking;
  }

  async #check(): Promise<void> {
    if (this.#stopped) return;
    if (!this.#client) {
      this.#client = await this.#connect();
      this.#options.log.info({ masterId: this.masterId }, 'database session restored');
    }
    const client = this.#client;
    let rows: { ok: boolean }[];
    try {
      // A leader checks that its session (and so its lock) still stands; a follower tries to lead.
      rows = (
        await this.#run<{ ok: boolean }>(
          this.#leader ? 'select true as ok' : 'select pg_try_advisory_lock($1::int8) as ok',
          this.#leader ? [] : [LEADER_LOCK],
        )
      ).rows;
    } catch (err) {
      // A session that does not answer is as good as lost: the others may already take this master for dead.
      await this.#lost(client);
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.#leader) return;
    if (rows[0]?.ok && client === this.#client && !this.#stopped) {
      this.#leader = true;
      this.#options.log.info({ masterId: this.masterId }, 'this master leads: it runs the schedule and the sweeps');
      await this.#leadership.emit(true);
    }
  }

  async #lost(client: pg.Client): Promise<void> {
    if (client !== this.#client || this.#stopped) return;
    this.#client = undefined;
    this.#options.log.warn(
      { masterId: this.masterId },
      'database session lost: this master stops leading and stops its runs',
    );
    for (const listener of this.#sessionLost) listener();
    if (this.#leader) {
      this.#leader = false;
      await this.#leadership.emit(false);
    }
  }
}
