/**
 * A cache of prepared statements for the embedded SQLite connection. The query layer (MikroORM
 * on Kysely's SQLite dialect) prepares every statement again for every query: at the API's
 * request rates that was 8 % of the master's CPU on the profile route (`--cpu-prof`, see
 * docs/benchmarks.md). A prepared better-sqlite3 statement can be run again with other
 * parameters, so the same SQL text gets the same statement, except while that statement is
 * still being iterated (a streamed result), when a fresh one is prepared.
 * Written here, not taken from a library: the SQLite driver is chosen by MikroORM and offers no
 * statement cache of its own.
 */
interface Statement {
  readonly busy: boolean;
}

/**
 * Longer texts are prepared but not kept: a statement with its values written into the text
 * (MikroORM inlines them in bulk inserts) is never seen again, and one of ~95 KB held ~0.5 MiB
 * of native memory in the cache (a 200,000-file backup's manifest kept 100 MiB; docs/benchmarks.md).
 */
const MAX_CACHED_TEXT = 4096;
interface NativeDatabase {
  prepare(sql: string): Statement;
}

export function cacheStatements(db: NativeDatabase, size = 500): void {
  const prepare = db.prepare.bind(db);
  const cache = new Map<string, Statement>();
  db.prepare = (sql: string): Statement => {
    if (sql.length > MAX_CACHED_TEXT) return prepare(sql);
    const hit = cache.get(sql);
    if (hit && !hit.busy) {
      // Most recently used last: the first key is the one to evict.
      cache.delete(sql);
      cache.set(sql, hit);
      return hit;
    }
    const statement = prepare(sql);
    if (!hit) {
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value!);
    }
    return statement;
  };
}
