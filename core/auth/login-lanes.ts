import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { MikroORM } from '@mikro-orm/core';
import { AggregateSql } from '../db/aggregate-sql.ts';
import type { Clock } from '../lib/clock.ts';
import { AppError } from '../http/app-error.ts';

export interface LaneTimings {
  /** How long a lease holds when its master dies in the middle of an attempt (ms). */
  leaseMs: number;
  /** The wait between two tries for a lease another master holds (ms; a random part up to as much again is added). */
  pollMs: number;
  /** Longest wait for another master's lease before the attempt is refused with AUTH_RATE_LIMITED (ms). */
  maxWaitMs: number;
}

export const DEFAULT_LANE_TIMINGS: LaneTimings = { leaseMs: 30_000, pollMs: 25, maxWaitMs: 60_000 };

/**
 * Runs the sign-in attempts of one lane (an account, or one trusted client of it) one at a time,
 * on every master sharing the database, so that a slow-down cannot be beaten by sending in parallel.
 *
 * Two layers, because neither alone serialises across masters cheaply:
 * - On this master, a FIFO queue per lane (a promise chain): waiting attempts cost memory only and
 *   touch no database, however many arrive at once.
 * - Across masters, the head of each master's queue takes the lane's lease, a row of
 *   `login_leases` written by one conditional upsert (taken only when absent or lapsed), and
 *   deletes it when its attempt ends. Another master's head polls for it.
 * Why not a row lock (`SELECT ... FOR UPDATE`) or an advisory lock: both hold a pooled connection
 * for the whole attempt (the delay, argon2, the second factor), and a hundred waiting attempts
 * would hold a hundred connections, starving every other request and, when the attempt itself
 * needs a second connection (the audit writer's), deadlocking the pool. On SQLite a write
 * transaction would hold the one writer of the whole installation for the attempt.
 * A master that dies mid-attempt leaves its lease for `leaseMs` at most; an attempt slower than
 * that (an extremely slow database) can overlap the next one, never more.
 */
export class LoginLanes {
  readonly #orm: MikroORM;
  readonly #clock: Clock;
  readonly #timings: LaneTimings;
  readonly #tails = new Map<string, Promise<void>>();

  constructor({ orm, clock, laneTimings }: { orm: MikroORM; clock: Clock; laneTimings?: LaneTimings }) {
    this.#orm = orm;
    this.#clock = clock;
    this.#timings = laneTimings ?? DEFAULT_LANE_TIMINGS;
  }

  /**
   * Runs `work` once every earlier attempt of `lane` has ended, on this master and (unless
   * `local`: nothing to protect beyond this process, as for a name that is no account) on the others.
   */
  async run<T>(lane: string, work: () => Promise<T>, options: { local?: boolean } = {}): Promise<T> {
    const previous = this.#tails.get(lane) ?? Promise.resolve();
    let done!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (done = resolve)));
    this.#tails.set(lane, tail);
    await previous;
    try {
      if (options.local) return await work();
      const holder = await this.#acquire(lane);
      try {
        return await work();
      } finally {
        await this.#release(lane, holder);
      }
    } finally {
      done();
      if (this.#tails.get(lane) === tail) this.#tails.delete(lane);
    }
  }

  async #acquire(lane: string): Promise<string> {
    const sql = new AggregateSql(this.#orm.em.fork());
    const holder = randomBytes(12).toString('base64url');
    const deadline = Date.now() + this.#timings.maxWaitMs;
    for (;;) {
      const now = this.#clock.now().getTime();
      const taken = await sql.run(
        'insert into login_leases (lane, holder, expires_at) values (?, ?, ?) on conflict (lane) do update' +
          ' set holder = excluded.holder, expires_at = excluded.expires_at where login_leases.expires_at < ?',
        [lane, holder, sql.time(new Date(now + this.#timings.leaseMs)), sql.time(new Date(now))],
      );
      if (taken > 0) return holder;
      if (Date.now() >= deadline) {
        const seconds = Math.max(1, Math.ceil(this.#timings.leaseMs / 1000));
        throw new AppError('AUTH_RATE_LIMITED', {
          headers: { 'retry-after': String(seconds) },
          details: { retryAfterSeconds: seconds },
        });
      }
      // Real time, not the clock: a test clock that stands still must not stop the polling.
      await sleep(this.#timings.pollMs + Math.random() * this.#timings.pollMs);
    }
  }

  async #release(lane: string, holder: string): Promise<void> {
    await new AggregateSql(this.#orm.em.fork()).run('delete from login_leases where lane = ? and holder = ?', [
      lane,
      holder,
    ]);
  }
}
