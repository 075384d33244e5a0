import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { ENTITIES } from './entities/index.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { cacheStatements } from './statement-cache.ts';

export type Orm = MikroORM;

/**
 * Schema objects migrations create that no entity describes, so the ORM's schema diff would
 * drop them: the record search index (migration 018), SQLite's FTS5 table with its triggers and
 * PostgreSQL's trigram indexes, and the one-active-run index (migration 019, partial). Schema
 * comparisons leave statements naming them out.
 */
export const UNMANAGED_SCHEMA = /backup_records_search|backup_records_one_active/;

/** The ORM's schema difference without the statements about unmanaged objects. */
export async function schemaDrift(orm: MikroORM): Promise<string> {
  const sql = await orm.schema.getUpdateSchemaSQL({ wrap: false });
  return sql
    .split('\n')
    .filter((line) => !UNMANAGED_SCHEMA.test(line))
    .join('\n')
    .trim();
}
export type DatabaseKind = 'sqlite' | 'postgresql';

export function databaseKind(url: string): DatabaseKind {
  return url.startsWith('sqlite:') ? 'sqlite' : 'postgresql';
}

/**
 * Where the database lives, fit to show an admin: the SQLite file, or the PostgreSQL URL with
 * its credentials and parameters removed (either may hold the password).
 */
export function databaseLocation(url: string): string {
  if (databaseKind(url) === 'sqlite') return url.slice('sqlite:'.length);
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    return u.toString();
  } catch {
    return 'postgresql';
  }
}

/**
 * Opens the database named by the URL. The entity layer is driver-neutral; only this
 * function knows which MikroORM driver serves the URL.
 */
export async function openOrm(databaseUrl: string, options: { debug?: boolean } = {}): Promise<Orm> {
  const common = {
    entities: ENTITIES,
    extensions: [Migrator],
    // Background work must take its own fork; the global context is a bug magnet.
    allowGlobalContext: false,
    debug: options.debug ?? false,
    migrations: { migrationsList: MIGRATIONS, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    serialization: { forceObject: true },
    // The record search index (migration 018) is no entity: SQLite's FTS5 table and its shadow tables.
    schemaGenerator: { skipTables: [/^backup_records_search/] },
  };
  if (databaseKind(databaseUrl) === 'sqlite') {
    const path = databaseUrl.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const { MikroORM: SqliteOrm } = await import('@mikro-orm/sqlite');
    const orm = await SqliteOrm.init({ ...common, dbName: path });
    // One writer at a time: WAL lets readers proceed during writes, the busy timeout
    // makes a second writer wait instead of failing at once.
    await orm.em.getConnection().execute('pragma journal_mode = wal');
    await orm.em.getConnection().execute('pragma busy_timeout = 5000');
    await orm.em.getConnection().execute('pragma synchronous = normal');
    cacheStatements((await orm.em.getConnection().getNativeClient()) as Parameters<typeof cacheStatements>[0]);
    return orm as unknown as Orm;
  }
  const { MikroORM: PostgresOrm } = await import('@mikro-orm/postgresql');
  return (await PostgresOrm.init({ ...common, clientUrl: databaseUrl })) as unknown as Orm;
}

/** The advisory lock every master takes to migrate a PostgreSQL database: any constant they share. */
const MIGRATION_LOCK = 7_261_700_117;

/**
 * Applies pending migrations; returns the names applied. On PostgreSQL several masters may start
 * together: each first takes a transaction-scoped advisory lock on a connection of its own and
 * holds it while the migrator (on another connection of the pool) creates its table and runs,
 * so one migrates and the others, let in after its commit, find nothing pending.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const url = orm.config.get('clientUrl');
  if (!url || databaseKind(url) !== 'postgresql') return (await orm.migrator.up()).map((m) => m.name);
  const connection = orm.em.getConnection();
  return connection.transactional(async (trx) => {
    await connection.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK], 'get', trx);
    return (await orm.migrator.up()).map((m) => m.name);
  });
}
