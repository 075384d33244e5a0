import type { EntityManager } from '@mikro-orm/core';
import { CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import { dialectOf, type Dialect } from './migrations/dialect.ts';

/**
 * Hand-written SQL: the read models' aggregates (dashboard, reports, search: GROUP BY in the
 * database, so figures over a large history never load record rows into the process), and the
 * agent and session hot paths, where a statement through the connection costs ~12 µs against
 * ~130 µs for the same `findOne` through the ORM (query building, hydration; measured on
 * SQLite). The connection is MikroORM's own, so transactions and its connection handling hold.
 * The few dialect differences (time values, day buckets) live here.
 * Both dialects take `?` placeholders (MikroORM binds them).
 */
export class AggregateSql {
  readonly dialect: Dialect;
  readonly #em: EntityManager;

  constructor(em: EntityManager) {
    this.#em = em;
    this.dialect = dialectOf(em.getDriver());
  }

  async rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (this.dialect === 'sqlite') return (await this.#bound(sql, params)).rows as T[];
    // In the open transaction, if any: without it a statement took another connection of the pool
    // (outside the transaction), and a pool full of open transactions waiting for one hung.
    return this.#em.getConnection().execute(sql, params, 'all', this.#em.getTransactionContext()) as Promise<T[]>;
  }

  /** A write; resolves with the number of rows it changed. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    if (this.dialect === 'sqlite') return Number((await this.#bound(sql, params)).numAffectedRows ?? 0);
    const result = (await this.#em.getConnection().execute(sql, params, 'run', this.#em.getTransactionContext())) as {
      affectedRows?: number;
    };
    return result.affectedRows ?? 0;
  }

  /**
   * SQLite: the statement with its parameters bound, not written into the text. MikroORM's
   * `execute` inlines the values, so every node id made a new statement text, a new prepare and
   * a miss of the statement cache (at 10,000 agents, 30,000 distinct texts and most of the
   * master's CPU in `prepare`; bench/agents.ts). Through the same Kysely client (or the open
   * transaction) the ORM uses, so its connection lock and transactions hold.
   */
  #bound(sql: string, params: unknown[]): Promise<QueryResult<unknown>> {
    const client =
      this.#em.getTransactionContext<Kysely<unknown>>() ??
      (this.#em.getConnection() as unknown as { getClient(): Kysely<unknown> }).getClient();
    return client.executeQuery(CompiledQuery.raw(sql, params.map(sqliteValue)));
  }

  /** A time as a bind parameter: SQLite stores epoch milliseconds, PostgreSQL timestamptz. */
  time(date: Date): number | string {
    return this.dialect === 'sqlite' ? date.getTime() : date.toISOString();
  }

  /** The UTC day (YYYY-MM-DD) of a time column. */
  day(column: string): string {
    return this.dialect === 'sqlite'
      ? `strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')`
      : `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;
  }

  /**
   * A grouping column SQLite must not take an index for: grouping on an indexed column makes its
   * planner walk that whole index to get the groups in order (50 ms at 100 000 records) instead
   * of range-scanning the covering window index and sorting the few groups (8 ms). A unary plus
   * hides the column from index selection there; PostgreSQL chooses well and takes the column.
   */
  groupKey(column: string): string {
    return this.dialect === 'sqlite' ? `+${column}` : column;
  }

  /** A case-insensitive substring test of a column against a bound, escaped `%...%` pattern. */
  contains(column: string): string {
    return this.dialect === 'sqlite' ? `${column} like ? escape '\\'` : `${column} ilike ? escape '\\'`;
  }
}

/** The `%...%` pattern for `contains`, with the LIKE wildcards of the term escaped. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** A time read back from an aggregate: SQLite gives numbers, PostgreSQL Date objects. */
export function timeOf(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value;
  const n = Number(value);
  return Number.isFinite(n) ? new Date(n) : new Date(String(value));
}

/** A boolean read back: SQLite gives 0/1, PostgreSQL true/false. */
export function bool(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

export function num(value: unknown): number {
  return value === null || value === undefined ? 0 : Number(value);
}

/** A parameter as SQLite stores it (MikroORM's mapping): booleans as 0/1, times as epoch milliseconds. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value instanceof Date) return value.getTime();
  return value ?? null;
}
