import { EventEmitter } from 'node:events';

/** The channels masters tell each other on (PostgreSQL NOTIFY channel names). */
export type ClusterChannel = 'backplane_events' | 'backplane_logs' | 'backplane_schedule' | 'backplane_cancel';

/**
 * The masters sharing one database, as one master sees them: who it is, whether it leads (runs
 * the schedule and the sweeps), which masters are alive, and a way to tell all of them something.
 * Embedded SQLite has one master, which leads from the start (`LocalCluster`); on PostgreSQL
 * several masters share the database (`PgCluster`, core/db/pg-cluster.ts).
 */
export interface Cluster {
  /** This master's boot number (the event boot epoch): unique for every start of every master on the database. */
  readonly masterId: number;
  /** True when other masters may share the database (PostgreSQL). */
  readonly shared: boolean;
  readonly leader: boolean;
  /** Called on every change of leadership, one call at a time, in order; the first call comes from `start`. */
  onLeadership(listener: (leader: boolean) => Promise<void>): void;
  /** Called when this master lost its database session: others may take it for dead and settle its runs. */
  onSessionLost(listener: () => void): void;
  start(): Promise<void>;
  /** Leaves the cluster; leadership listeners are not called (the caller stops its leader's work first). */
  stop(): Promise<void>;
  /** The masters alive now, this one included. */
  liveMasters(): Promise<number[]>;
  /** Reaches every master's listeners on the channel, this master's included. Payloads stay under 7,900 bytes. */
  notify(channel: ClusterChannel, payload: string): Promise<void>;
  /**
   * Like `notify`, with a number from a sequence every master shares put before the payload
   * (`<n>:<payload>`), and delivered to every master in the order of those numbers.
   */
  notifyNumbered(channel: ClusterChannel, payload: string): Promise<void>;
  listen(channel: ClusterChannel, listener: (payload: string) => void): () => void;
}

/** Listeners of leadership changes, called one at a time in order. */
export class LeadershipListeners {
  readonly #listeners: ((leader: boolean) => Promise<void>)[] = [];
  #chain: Promise<void> = Promise.resolve();
  readonly #onError: (err: unknown) => void;

  constructor(onError: (err: unknown) => void) {
    this.#onError = onError;
  }

  add(listener: (leader: boolean) => Promise<void>): void {
    this.#listeners.push(listener);
  }

  /**
   * Resolves once every listener has seen this change (and every change before it). A listener
   * that fails is reported to `onError` (the change happened all the same), or, with `strict`,
   * makes this reject.
   */
  emit(leader: boolean, options: { strict?: boolean } = {}): Promise<void> {
    const turn = this.#chain.then(async () => {
      for (const listener of this.#listeners) {
        if (options.strict) await listener(leader);
        else await listener(leader).catch(this.#onError);
      }
    });
    this.#chain = turn.catch(() => undefined);
    return turn;
  }
}

/** One master on an embedded database: it leads, it is the only one alive, its notices stay in process. */
export class LocalCluster implements Cluster {
  readonly masterId: number;
  readonly shared = false;
  #leader = false;
  readonly #emitter = new EventEmitter();
  readonly #leadership: LeadershipListeners;
  #counter: number;

  constructor(masterId: number, onError: (err: unknown) => void) {
    this.masterId = masterId;
    this.#counter = 0;
    this.#leadership = new LeadershipListeners(onError);
    this.#emitter.setMaxListeners(0);
  }

  get leader(): boolean {
    return this.#leader;
  }

  onLeadership(listener: (leader: boolean) => Promise<void>): void {
    this.#leadership.add(listener);
  }

  onSessionLost(): void {
    // An embedded database has no session to lose.
  }

  /** Leads at once; a leader's service that cannot start fails the start, as before there was a cluster. */
  async start(): Promise<void> {
    this.#leader = true;
    await this.#leadership.emit(true, { strict: true });
  }

  async stop(): Promise<void> {
    this.#leader = false;
  }

  async liveMasters(): Promise<number[]> {
    return [this.masterId];
  }

  async notify(channel: ClusterChannel, payload: string): Promise<void> {
    this.#emitter.emit(channel, payload);
  }

  async notifyNumbered(channel: ClusterChannel, payload: string): Promise<void> {
    this.#emitter.emit(channel, `${++this.#counter}:${payload}`);
  }

  listen(channel: ClusterChannel, listener: (payload: string) => void): () => void {
    this.#emitter.on(channel, listener);
    return () => this.#emitter.off(channel, listener);
  }
}
