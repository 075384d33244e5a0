import { basename } from 'node:path';
import type { Readable } from 'node:stream';
import pg from 'pg';
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
import { pgDumpArgs, pgEnv, psqlRestoreArgs } from './postgres-argv.ts';
import { parsePostgresConfig, postgresConfigSchema, type PostgresConfig } from './postgres-config.ts';
import { classifyPgStderr, pgError } from './postgres-errors.ts';

/** Databases PostgreSQL creates itself: listed, marked `system`. */
const SYSTEM_DATABASES = new Set(['postgres', 'template0', 'template1']);

const DISCOVER_SQL = `
  SELECT datname,
         CASE WHEN has_database_privilege(datname, 'CONNECT') THEN pg_database_size(oid) END AS size
    FROM pg_database
   ORDER BY datname`;

export class PostgresDriver implements DatabaseDriverInstance {
  readonly #config: PostgresConfig;
  readonly #deps: ProviderDeps;

  constructor(config: PostgresConfig, deps: ProviderDeps) {
    this.#config = config;
    this.#deps = deps;
  }

  async #withClient<T>(action: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
    const timeoutMs = this.#config.connectTimeoutSeconds * 1000;
    const client = new pg.Client({
      host: this.#config.host,
      port: this.#config.port,
      user: this.#config.user,
      password: this.#config.password,
      database: this.#config.database ?? 'postgres',
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      statement_timeout: timeoutMs,
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

  #tool(command: string, args: string[]): ToolRun {
    return {
      command,
      args,
      env: pgEnv(this.#deps.env ?? process.env, this.#config),
      secrets: [this.#config.password],
      classify: classifyPgStderr,
    };
  }

  async dump(options: { databases: string[] }): Promise<{ stream: Readable; done: Promise<void> }> {
    const database = oneDatabase('postgresql', options.databases);
    const binary = this.#deps.env?.BACKPLANE_PG_DUMP_BINARY ?? 'pg_dump';
    this.#deps.log.info(`postgresql: dumping database ${database} with ${basename(binary)}`);
    return runDump(this.#tool(binary, pgDumpArgs(this.#config, database)));
  }

  async restore(stream: Readable, options: { database: string }): Promise<void> {
    const database = oneDatabase('postgresql', [options.database]);
    const binary = this.#deps.env?.BACKPLANE_PSQL_BINARY ?? 'psql';
    await runRestore(this.#tool(binary, psqlRestoreArgs(this.#config, database)), stream);
  }
}

export const postgresType: DatabaseDriverType = {
  type: 'postgresql',
  aliases: ['postgresql', 'pgsql'],
  displayName: 'PostgreSQL',
  description: 'One database per dump with pg_dump (plain SQL); restores with psql into a chosen database.',
  configSchema: postgresConfigSchema,
  secretFields: ['password'],
  create(config, deps) {
    return new PostgresDriver(parsePostgresConfig(config), deps);
  },
};
