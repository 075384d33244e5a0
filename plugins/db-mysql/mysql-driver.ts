import type { Readable } from 'node:stream';
import mysql from 'mysql2/promise';
import {
  ProviderError,
  type DatabaseDriverInstance,
  type DatabaseDriverType,
  type DiscoveredDatabase,
  type ProviderDeps,
  type TestResult,
} from '../../core/plugin-host/contracts.ts';
import { oneDatabase } from '../../core/plugin-host/config-fields.ts';
import { runDump, runRestore, type ToolRun } from '../../core/plugin-host/tool-process.ts';
import { mysqldumpArgs, mysqlEnv, mysqlRestoreArgs } from './mysql-argv.ts';
import { mysqlConfigSchema, parseMysqlConfig, type MysqlConfig } from './mysql-config.ts';
import { classifyMysqlStderr, mysqlError } from './mysql-errors.ts';

/** Schemas the server keeps for itself: listed, marked `system`. */
const SYSTEM_DATABASES = new Set(['information_schema', 'mysql', 'performance_schema', 'sys']);

const DISCOVER_SQL = `
  SELECT s.SCHEMA_NAME AS name, COALESCE(SUM(t.DATA_LENGTH + t.INDEX_LENGTH), 0) AS size
    FROM information_schema.SCHEMATA s
    LEFT JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = s.SCHEMA_NAME
   GROUP BY s.SCHEMA_NAME
   ORDER BY s.SCHEMA_NAME`;

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
      conn = await mysql.createConnection({
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
        const [rows] = await conn.query({ sql: 'SELECT VERSION() AS version', timeout: this.#config.connectTimeoutSeconds * 1000 });
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

  #tool(command: string, args: string[]): ToolRun {
    return {
      command,
      args,
      env: mysqlEnv(this.#deps.env ?? process.env, this.#config),
      secrets: [this.#config.password],
      classify: classifyMysqlStderr,
    };
  }

  async dump(options: { databases: string[] }): Promise<{ stream: Readable; done: Promise<void> }> {
    const args = mysqldumpArgs(this.#config, oneDatabase('mysql', options.databases));
    return runDump(this.#tool(this.#deps.env?.BACKPLANE_MYSQLDUMP_BINARY ?? 'mysqldump', args));
  }

  async restore(stream: Readable, options: { database: string }): Promise<void> {
    const args = mysqlRestoreArgs(this.#config, options.database);
    await runRestore(this.#tool(this.#deps.env?.BACKPLANE_MYSQL_BINARY ?? 'mysql', args), stream);
  }
}

export const mysqlType: DatabaseDriverType = {
  type: 'mysql',
  aliases: ['mysql'],
  displayName: 'MySQL / MariaDB',
  description: 'One database per dump with mysqldump --single-transaction; restores with the mysql client into a chosen database.',
  configSchema: mysqlConfigSchema,
  secretFields: ['password'],
  create(config, deps) {
    return new MysqlDriver(parseMysqlConfig(config), deps);
  },
};
