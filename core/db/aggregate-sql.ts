import type { EntityManager } from '@mikro-orm/core';
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

  rows<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.#em.getConnection().execute(sql, params) as Promise<T[]>;
  }

  /** A write; resolves with the number of rows it changed. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    const result = (await this.#em.getConnection().execute(sql, params, 'run')) as { affectedRows?: number };
    return result.affectedRows ?? 0;
  }

  /** A time as a bind parameter: SQLite stores epoch milliseconds, PostgreSQL timestamptz. */
  time(date: Date): number | string {
    return this.dialect === 'sqlite' ? date.getTime() : date.toISOString();
  }

  /** The UTC day (YYYY-MM-DD) of a time column. */
  day(column: string): string {
    return this.dialect === 'sqlite' ? `strftime('%Y-%m-%d', ${column} / 1000, 'unixepoch')` : `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD')`;
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
