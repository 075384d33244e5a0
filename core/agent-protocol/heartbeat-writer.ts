import { DeadlockException, type MikroORM } from '@mikro-orm/core';
import { AggregateSql } from '../db/aggregate-sql.ts';

interface PendingBeat {
  rowId: number;
  sql: string;
  params: unknown[];
  resolve: (applied: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Heartbeats written by group commit: the UPDATEs of every heartbeat that arrived in the same
 * turn of the event loop go to the database in one transaction, so one commit (one WAL append
 * on SQLite) serves them all. Each caller still waits for its own row to be written before it
 * answers the agent, so a reader never sees less than before; a failed batch fails each of its
 * heartbeats (the agents send the next one anyway). Measured with bench/api.ts and
 * bench/agents.ts: a commit per heartbeat was the largest cost of the route. A batch writes its
 * rows in id order: several masters' batches on one PostgreSQL database then lock shared rows in
 * one order and never deadlock (bench/masters.ts answered 500s before).
 */
export class HeartbeatWriter {
  readonly #orm: MikroORM;
  #pending: PendingBeat[] = [];

  constructor({ orm }: { orm: MikroORM }) {
    this.#orm = orm;
  }

  /** Runs `update ... where id = ?` for row `rowId`; resolves with whether it changed one row (the node still exists). */
  write(rowId: number, sql: string, params: unknown[]): Promise<boolean> {
    return new Promise((resolve, reject) => {
      if (this.#pending.length === 0) setImmediate(() => void this.#flush());
      this.#pending.push({ rowId, sql, params, resolve, reject });
    });
  }

  async #flush(): Promise<void> {
    const batch = this.#pending.sort((a, b) => a.rowId - b.rowId);
    this.#pending = [];
    for (let attempt = 1; ; attempt++) {
      try {
        const changed = await this.#orm.em.fork().transactional(async (tx) => {
          const sql = new AggregateSql(tx);
          const rows: number[] = [];
          for (const beat of batch) rows.push(await sql.run(beat.sql, beat.params));
          return rows;
        });
        batch.forEach((beat, i) => beat.resolve(changed[i] === 1));
        return;
      } catch (err) {
        // PostgreSQL ends one of two transactions that wait on each other (another writer of
        // node rows in another order, such as the node monitor's set-based update): the batch
        // was rolled back whole and is written again.
        if (isDeadlock(err) && attempt < 3) continue;
        for (const beat of batch) beat.reject(err);
        return;
      }
    }
  }
}

/** A deadlock as MikroORM converts it, or as the driver raises it from a hand-written statement (SQLSTATE 40P01). */
function isDeadlock(err: unknown): boolean {
  return err instanceof DeadlockException || (err as { code?: unknown } | null)?.code === '40P01';
}
