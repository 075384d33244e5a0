import type { Readable } from 'node:stream';
import type mysql from 'mysql2/promise';

/** Loaded on first use: a master with no MySQL task never pays for the driver. */
const loadMysql = async (): Promise<typeof mysql> => (await import('mysql2/promise')).default;
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
import { checkedDatabaseName, mysqldumpArgs, mysqlEnv, mysqlOptionFile, mysqlRestoreArgs } from './mysql-argv.ts';
import { mysqlConfigSchema, parseMysqlConfig, type MysqlConfig } from './mysql-config.ts';
import { classifyMysqlStderr, mysqlError } from './mysql-errors.ts';
import { checkMysqlDump, quoteIdent } from './mysql-sql.ts';

/** Schemas the server keeps for itself: listed, marked `system`. */
const SYSTEM_DATABASES = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);

const DISCOVER_SQL = `
  SELECT s.SCHEMA_NAME AS name, COALESCE(SUM(t.DATA_LENGTH + t.INDEX_LENGTH), 0) AS size
    FROM information_schema.SCHEMATA s
    LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME
   GROUP BY s.SCHEMA_NAME
   ORDER BY s.SCHEMA_NAME`;

/**
 * The database's tables that hold rows: base tables (and MariaDB's system-versioned ones, which
 * are base tables with history); views and sequences are not counted.
 */
const TABLES_SQL = `
  SELECT TABLE_NAME AS name
    FROM information_schema.TABLES
   WHERE TABLE_SCHEMA = ? AND TABLE_TYPE IN ('BASE TABLE', 'SYSTEM VERSIONED')
   ORDER BY TABLE_NAME`;

/** ER_DB_CREATE_EXISTS: CREATE DATABASE of a database that exists. */
const DB_EXISTS = 1007;

/**
 * How long DROP DATABASE may wait for other sessions' metadata locks (the server default,
 * lock_wait_timeout, is a year): a sandbox someone still reads fails instead of hanging.
 */
const DDL_LOCK_WAIT_SECONDS = 60;

export class MysqlDriver implements DatabaseDriverInstance {
  readonly #config: MysqlConfig;
  readonly #deps: ProviderDeps;

  constructor(config: MysqlConfig, deps: ProviderDeps) {
    this.#config = config;
    this.#deps = deps;
  }

  async #withConnection<T>(action: string, work: (conn: mysql.Connection) => Promise<T>): Promise<T> {
    const timeoutMs = this.#config.connectTimeoutSeconds * 1000;
    let conn: mysql.Connection | undefined;
    try {
      conn = await (await loadMysql()).createConnection({
        host: this.#config.host,
        port: this.#config.port,
        user: this.#config.user,
        password: this.#config.password,
        connectTimeout: timeoutMs,
        charset: 'utf8mb4',
      });
      conn.on('error', () => undefined);
      const connection = conn;
      return await work(connection);
    } catch (err) {
      throw mysqlError(err, action, this.#config.password);
    } finally {
      conn?.destroy();
    }
  }

  async testConnection(): Promise<TestResult> {
    try {
      const version = await this.#withConnection('connecting', async (conn) => {
        const [rows] = await conn.query({
          sql: 'SELECT VERSION() AS version',
          timeout: this.#config.connectTimeoutSeconds * 1000,
        });
        return String((rows as Array<{ version: string }>)[0]?.version ?? 'unknown');
      });
      return { success: true, message: `connected to MySQL/MariaDB ${version} as ${this.#config.user}` };
    } catch (err) {
      return { success: false, message: (err as Error).message };
    }
  }

  async discover(): Promise<DiscoveredDatabase[]> {
    return this.#withConnection('listing databases', async (conn) => {
      const [rows] = await conn.query({ sql: DISCOVER_SQL, timeout: this.#config.connectTimeoutSeconds * 1000 });
      return (rows as Array<{ name: string; size: string | number }>).map((row) => ({
        name: row.name,
        sizeBytes: Number(row.size),
        system: SYSTEM_DATABASES.has(row.name.toLowerCase()),
      }));
    });
  }

  /**
   * mysqldump or mysql, given the password in an option file of its own (in a private folder
   * under the provider's scratch space), removed once the program exited (runDump and
   * runRestore call `release`). `args` builds the command line for the file's path. The
   * connections this driver opens itself (test, discovery, row counts) use the `mysql2` library
   * in this process and start no program.
   */
  async #tool(command: string, args: (optionFile: string | undefined) => string[]): Promise<ToolRun> {
    const run = { command, env: mysqlEnv(this.#deps.env ?? process.env), secrets: [this.#config.password] };
    if (!this.#config.password) return { ...run, args: args(undefined), classify: classifyMysqlStderr };
    const file = await writeSecretFile(this.#deps.tempDir, 'client.cnf', mysqlOptionFile(this.#config.password));
    const release = (): Promise<void> =>
      file.remove().catch((err: unknown) => {
        this.#deps.log.warn(`mysql: the option file ${file.path} could not be removed: ${(err as Error).message}`);
      });
    try {
      return { ...run, args: args(file.path), classify: classifyMysqlStderr, release };
    } catch (err) {
      await release(); // a database name the tools would misread: nothing runs
      throw err;
    }
  }

  async dump(options: DumpOptions): Promise<DumpStream> {
    const database = oneDatabase('mysql', options.databases);
    const binary = this.#deps.env?.BACKPLANE_MYSQLDUMP_BINARY ?? 'mysqldump';
    return runDump(await this.#tool(binary, (file) => mysqldumpArgs(this.#config, database, file)), options.compressor);
  }

  async restore(stream: Readable, options: { database: string }): Promise<void> {
    const binary = this.#deps.env?.BACKPLANE_MYSQL_BINARY ?? 'mysql';
    await runRestore(
      await this.#tool(binary, (file) => mysqlRestoreArgs(this.#config, options.database, file)),
      stream,
    );
  }

  async #exists(conn: mysql.Connection, database: string): Promise<boolean> {
    const [rows] = await conn.query({
      sql: 'SELECT 1 AS found FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?',
      values: [database],
      timeout: this.#config.connectTimeoutSeconds * 1000,
    });
    return (rows as unknown[]).length > 0;
  }

  /** Creates the database (utf8mb4) unless it exists; a user without CREATE can still "ensure" an existing one. */
  async ensureDatabase(name: string): Promise<boolean> {
    const database = checkedDatabaseName(name);
    return this.#withConnection(`creating database ${database}`, async (conn) => {
      if (await this.#exists(conn, database)) return false;
      try {
        await conn.query(`CREATE DATABASE ${quoteIdent(database)} CHARACTER SET utf8mb4`);
        return true;
      } catch (err) {
        if ((err as { errno?: unknown } | undefined)?.errno === DB_EXISTS) return false; // created concurrently
        throw err;
      }
    });
  }

  async dropDatabase(name: string): Promise<void> {
    const database = checkedDatabaseName(name);
    if (SYSTEM_DATABASES.has(database.toLowerCase()))
      throw new ProviderError('permanent', `mysql: refusing to drop ${database}`);
    await this.#withConnection(`dropping database ${database}`, async (conn) => {
      await conn.query(`SET SESSION lock_wait_timeout = ${DDL_LOCK_WAIT_SECONDS}`);
      await conn.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)}`);
    });
  }

  // No replaceDatabase: MySQL has no RENAME DATABASE (moving every table with RENAME TABLE
  // would leave views, routines, triggers and events behind), so core uses its fallback.

  /** Exact row counts (`count(*)`) of the database's base tables, keyed by table name. */
  async tableStats(database: string): Promise<Record<string, number>> {
    const name = checkedDatabaseName(database);
    return this.#withConnection(`counting rows in ${name}`, async (conn) => {
      if (!(await this.#exists(conn, name)))
        throw new ProviderError('not_found', `mysql: database ${name} does not exist`);
      const [tables] = await conn.query({ sql: TABLES_SQL, values: [name] });
      const stats: Record<string, number> = {};
      for (const { name: table } of tables as Array<{ name: string }>) {
        const [rows] = await conn.query(`SELECT COUNT(*) AS n FROM ${quoteIdent(name)}.${quoteIdent(table)}`);
        stats[table] = Number((rows as Array<{ n: number | string }>)[0]?.n ?? 0);
      }
      return stats;
    });
  }
}

export const mysqlType: DatabaseDriverType = {
  type: 'mysql',
  aliases: ['mysql'],
  displayName: 'MySQL / MariaDB',
  description:
    'One database per dump with mysqldump --single-transaction; restores with the mysql client into a chosen database.',
  configSchema: mysqlConfigSchema,
  secretFields: ['password'],
  // The mysql client commits statement by statement (DDL commits implicitly): a restore that
  // fails part-way leaves the tables it already loaded.
  atomicRestore: false,
  checkDump: checkMysqlDump,
  create(config, deps) {
    return new MysqlDriver(parseMysqlConfig(config), deps);
  },
};
