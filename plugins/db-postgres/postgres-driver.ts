import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';

/** Loaded on first use: a master with no PostgreSQL task never pays for the driver. */
const loadPg = async (): Promise<typeof pg> => (await import('pg')).default;
import {
  ProviderError,
  type DatabaseDriverInstance,
  type DatabaseDriverType,
  type DiscoveredDatabase,
  type DumpOptions,
  type DumpStream,
  type ProviderDeps,
  type TestResult,
  oneDatabase,
  runDump,
  runRestore,
  type ToolRun,
  writeSecretFile,
} from '@backplane/plugin-api';
import { pgDumpArgs, pgEnv, pgpassContent, psqlRestoreArgs } from './postgres-argv.ts';
import { parsePostgresConfig, postgresConfigSchema, type PostgresConfig } from './postgres-config.ts';
import { classifyPgStderr, pgError } from './postgres-errors.ts';
import { checkedPgDatabaseName, checkPgDump, oldDatabaseName, quoteIdent } from './postgres-sql.ts';

/** Databases PostgreSQL creates itself: listed, marked `system`. */
const SYSTEM_DATABASES = new Set(['postgres', 'template0', 'template1']);

const DISCOVER_SQL = `
  SELECT datname,
         CASE WHEN has_database_privilege(datname, 'CONNECT') THEN pg_database_size(oid) END AS size
    FROM pg_database
   ORDER BY datname`;

/** Databases that must never be dropped or replaced: CREATE DATABASE copies them. */
const TEMPLATE_DATABASES = new Set(['template0', 'template1']);

/**
 * Every ordinary table (partitions included, partitioned parents not, so no row counts twice)
 * outside the system schemas.
 */
const USER_TABLES_SQL = `
  SELECT n.nspname AS schema, c.relname AS name
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE c.relkind = 'r'
     AND n.nspname NOT IN ('pg_catalog', 'information_schema')
     AND n.nspname NOT LIKE 'pg\\_toast%'
     AND n.nspname NOT LIKE 'pg\\_temp\\_%'
   ORDER BY 1, 2`;

/** SQLSTATE 55006: the database is being accessed by other users (a session slipped in). */
const IN_USE = '55006';

interface ClientOptions {
  /** The database to connect to; the config's (or `postgres`) when absent. */
  database?: string;
  /**
   * Work whose length grows with the data or the server's load (row counts, CREATE/DROP
   * DATABASE): no statement timeout, only a bound on waiting for locks. Everything else is
   * bounded by `connectTimeoutSeconds`.
   */
  long?: boolean;
}

export class PostgresDriver implements DatabaseDriverInstance {
  readonly #config: PostgresConfig;
  readonly #deps: ProviderDeps;

  constructor(config: PostgresConfig, deps: ProviderDeps) {
    this.#config = config;
    this.#deps = deps;
  }

  async #withClient<T>(
    action: string,
    work: (client: pg.Client) => Promise<T>,
    options: ClientOptions = {},
  ): Promise<T> {
    const timeoutMs = this.#config.connectTimeoutSeconds * 1000;
    const { Client } = await loadPg();
    const client = new Client({
      host: this.#config.host,
      port: this.#config.port,
      user: this.#config.user,
      password: this.#config.password,
      database: options.database ?? this.#config.database ?? 'postgres',
      connectionTimeoutMillis: timeoutMs,
      ...(options.long ? { lock_timeout: timeoutMs } : { query_timeout: timeoutMs, statement_timeout: timeoutMs }),
      application_name: 'backplane',
    });
    client.on('error', () => undefined); // a dropped idle connection must not crash the process
    try {
      await client.connect();
      return await work(client);
    } catch (err) {
      throw pgError(err, action, this.#config.password);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  async testConnection(): Promise<TestResult> {
    try {
      const version = await this.#withClient('connecting', async (client) => {
        const result = await client.query<{ server_version: string }>('SHOW server_version');
        return result.rows[0]?.server_version ?? 'unknown';
      });
      return { success: true, message: `connected to PostgreSQL ${version} as ${this.#config.user}` };
    } catch (err) {
      return { success: false, message: (err as Error).message };
    }
  }

  async discover(): Promise<DiscoveredDatabase[]> {
    return this.#withClient('listing databases', async (client) => {
      const result = await client.query<{ datname: string; size: string | null }>(DISCOVER_SQL);
      return result.rows.map((row) => ({
        name: row.datname,
        ...(row.size === null ? {} : { sizeBytes: Number(row.size) }),
        system: SYSTEM_DATABASES.has(row.datname),
      }));
    });
  }

  /**
   * pg_dump or psql, given the password in a pgpass file of its own (in a private folder under
   * the provider's scratch space), removed once the program exited (runDump and runRestore call
   * `release`). The connections this driver opens itself (test, discovery, row counts) use the
   * `pg` library in this process and start no program.
   */
  async #tool(command: string, args: string[]): Promise<ToolRun> {
    const base = this.#deps.env ?? process.env;
    const run = { command, args, secrets: [this.#config.password], classify: classifyPgStderr };
    if (!this.#config.password) return { ...run, env: pgEnv(base, this.#config) };
    const file = await writeSecretFile(this.#deps.tempDir, 'pgpass', pgpassContent(this.#config.password));
    const release = (): Promise<void> =>
      file.remove().catch((err: unknown) => {
        this.#deps.log.warn(
          `postgresql: the password file ${file.path} could not be removed: ${(err as Error).message}`,
        );
      });
    return { ...run, env: pgEnv(base, this.#config, file.path), release };
  }

  async dump(options: DumpOptions): Promise<DumpStream> {
    const database = oneDatabase('postgresql', options.databases);
    const binary = this.#deps.env?.BACKPLANE_PG_DUMP_BINARY ?? 'pg_dump';
    this.#deps.log.info(`postgresql: dumping database ${database} with ${basename(binary)}`);
    return runDump(await this.#tool(binary, pgDumpArgs(this.#config, database)), options.compressor);
  }

  async restore(stream: Readable, options: { database: string }): Promise<void> {
    const database = oneDatabase('postgresql', [options.database]);
    const binary = this.#deps.env?.BACKPLANE_PSQL_BINARY ?? 'psql';
    await runRestore(await this.#tool(binary, psqlRestoreArgs(this.#config, database)), stream);
  }

  /**
   * Where CREATE/DROP/ALTER DATABASE run: the configured database, unless it is one of those
   * being changed (a session cannot drop or rename its own database). No statement timeout:
   * CREATE DATABASE waits for a checkpoint and DROP removes every file, which can take a while
   * on a busy server; waiting for locks stays bounded.
   */
  #maintenance(busy: string[]): ClientOptions {
    const candidates = [this.#config.database ?? 'postgres', 'postgres', 'template1'];
    return { database: candidates.find((name) => !busy.includes(name)) ?? 'template1', long: true };
  }

  async #exists(client: pg.Client, name: string): Promise<boolean> {
    const result = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * Runs `work` (a DROP or RENAME, which fail while anyone else is connected) after ending every
   * other session on `names`; again when a session connected meanwhile (55006), until the
   * timeout. Ending sessions needs superuser, membership of pg_signal_backend, or their role.
   */
  async #whileDisconnected(client: pg.Client, names: string[], work: () => Promise<void>): Promise<void> {
    const deadline = Date.now() + this.#config.connectTimeoutSeconds * 1000;
    for (;;) {
      for (;;) {
        const ended = await client.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ANY($1::text[]) AND pid <> pg_backend_pid()',
          [names],
        );
        if (ended.rows.length === 0 || Date.now() > deadline) break;
        await sleep(100); // terminated sessions take a moment to leave pg_stat_activity
      }
      try {
        await work();
        return;
      } catch (err) {
        if ((err as { code?: unknown } | undefined)?.code !== IN_USE || Date.now() > deadline) throw err;
      }
    }
  }

  async ensureDatabase(name: string): Promise<boolean> {
    const database = checkedPgDatabaseName(name);
    return this.#withClient(
      `creating database ${database}`,
      async (client) => {
        if (await this.#exists(client, database)) return false;
        try {
          // template0: a pristine database, whatever an administrator added to template1, which is
          // what a plain dump restores into (and nobody can be connected to it, unlike template1).
          await client.query(`CREATE DATABASE ${quoteIdent(database)} TEMPLATE template0`);
          return true;
        } catch (err) {
          if ((err as { code?: unknown } | undefined)?.code === '42P04') return false; // created concurrently
          throw err;
        }
      },
      this.#maintenance([database]),
    );
  }

  async dropDatabase(name: string): Promise<void> {
    const database = checkedPgDatabaseName(name);
    if (TEMPLATE_DATABASES.has(database))
      throw new ProviderError('permanent', `postgresql: refusing to drop ${database}`);
    await this.#withClient(
      `dropping database ${database}`,
      (client) => this.#drop(client, database),
      this.#maintenance([database]),
    );
  }

  /** DROP DATABASE ... WITH (FORCE) from PostgreSQL 13; before, sessions are ended first. */
  async #drop(client: pg.Client, database: string): Promise<void> {
    const version = await client.query<{ server_version_num: string }>('SHOW server_version_num');
    if (Number(version.rows[0]?.server_version_num) >= 130000) {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`);
      return;
    }
    await this.#whileDisconnected(client, [database], async () => {
      await client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`);
    });
  }

  /**
   * Ends the sessions on both databases, then, in one transaction (ALTER DATABASE ... RENAME is
   * transactional), renames `target` (when it exists) to `<target>__bp_old_<hex>` and `source` to
   * `target`: either both renames happen or neither. The old database is dropped afterwards; if
   * that fails, the swap stands and the leftover is reported in the log.
   */
  async replaceDatabase(target: string, source: string): Promise<void> {
    const to = checkedPgDatabaseName(target);
    const from = checkedPgDatabaseName(source);
    if (to === from) throw new ProviderError('permanent', `postgresql: cannot replace ${to} with itself`);
    if (TEMPLATE_DATABASES.has(to)) throw new ProviderError('permanent', `postgresql: refusing to replace ${to}`);
    const old = oldDatabaseName(to, randomBytes(4).toString('hex'));
    const renamed = await this.#withClient(
      `replacing database ${to} with ${from}`,
      async (client) => {
        if (!(await this.#exists(client, from)))
          throw new ProviderError('not_found', `postgresql: database ${from} does not exist`);
        let hadTarget = false;
        await this.#whileDisconnected(client, [to, from], async () => {
          await client.query('BEGIN');
          try {
            hadTarget = await this.#exists(client, to);
            if (hadTarget) await client.query(`ALTER DATABASE ${quoteIdent(to)} RENAME TO ${quoteIdent(old)}`);
            await client.query(`ALTER DATABASE ${quoteIdent(from)} RENAME TO ${quoteIdent(to)}`);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw err;
          }
        });
        return hadTarget;
      },
      this.#maintenance([to, from, old]),
    );
    if (!renamed) return;
    try {
      await this.#withClient(
        `dropping the replaced database ${old}`,
        (client) => this.#drop(client, old),
        this.#maintenance([to, from, old]),
      );
    } catch (err) {
      this.#deps.log.warn(
        `postgresql: ${to} was replaced, but its previous content (now ${old}) could not be dropped: ${(err as Error).message}`,
      );
    }
  }

  /** Exact row counts (`count(*)`) of every user table, keyed `schema.table`. */
  async tableStats(database: string): Promise<Record<string, number>> {
    const name = checkedPgDatabaseName(database);
    return this.#withClient(
      `counting rows in ${name}`,
      async (client) => {
        const tables = await client.query<{ schema: string; name: string }>(USER_TABLES_SQL);
        const stats: Record<string, number> = {};
        for (const table of tables.rows) {
          const result = await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM ${quoteIdent(table.schema)}.${quoteIdent(table.name)}`,
          );
          stats[`${table.schema}.${table.name}`] = Number(result.rows[0]?.n ?? 0);
        }
        return stats;
      },
      { database: name, long: true },
    );
  }
}

export const postgresType: DatabaseDriverType = {
  type: 'postgresql',
  aliases: ['postgresql', 'pgsql'],
  displayName: 'PostgreSQL',
  description: 'One database per dump with pg_dump (plain SQL); restores with psql into a chosen database.',
  configSchema: postgresConfigSchema,
  secretFields: ['password'],
  // psql runs the dump with --single-transaction and ON_ERROR_STOP, and runRestore kills it before
  // EOF when the input fails: a restore that fails part-way commits nothing.
  atomicRestore: true,
  checkDump: checkPgDump,
  create(config, deps) {
    return new PostgresDriver(parsePostgresConfig(config), deps);
  },
};
