import type { PostgresConfig } from './postgres-config.ts';

/**
 * Command lines for pg_dump and psql: pure functions, so tests can assert that no secret ever
 * reaches argv (visible to every local user in `ps`). The password travels in PGPASSWORD only.
 */

/**
 * `-d` takes a connection string when the value contains `=` or starts with a URI scheme, so a
 * database called `host=evil` would redirect the tool. Passing `dbname='...'` (quoted as libpq
 * wants) makes every name a plain database name.
 */
export function dbnameArg(database: string): string {
  return `dbname='${database.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function connectionArgs(config: PostgresConfig, database: string): string[] {
  // -w: never prompt for a password (there is no terminal; a prompt would only fail later).
  return ['-h', config.host, '-p', String(config.port), '-U', config.user, '-w', '-d', dbnameArg(database)];
}

/**
 * Plain SQL of one database, restorable with stock `psql` into any (empty) database:
 * - no `--create`/`--clean`: the dump does not name its source database, so it restores into
 *   the database the operator chooses (a sandbox for a drill, never silently over the source);
 * - `--no-owner --no-privileges`: the roles of the source rarely exist on the restore server,
 *   and `ALTER ... OWNER TO`/`GRANT` to a missing role would stop psql under ON_ERROR_STOP.
 *   Objects end up owned by the restoring user; grants must be re-applied (documented trade-off).
 */
export function pgDumpArgs(config: PostgresConfig, database: string): string[] {
  return [...connectionArgs(config, database), '--format=plain', '--no-owner', '--no-privileges', '--encoding=UTF8'];
}

/** psql reading a dump from stdin: stop at the first error, all or nothing, no ~/.psqlrc. */
export function psqlRestoreArgs(config: PostgresConfig, database: string): string[] {
  return [...connectionArgs(config, database), '-X', '-q', '-v', 'ON_ERROR_STOP=1', '--single-transaction', '-f', '-'];
}

/** The child's environment: the parent's without PG* variables, plus the password and a connect timeout. */
export function pgEnv(
  base: Record<string, string | undefined>,
  config: PostgresConfig,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('PG')) env[key] = value;
  env.PGCONNECT_TIMEOUT = String(config.connectTimeoutSeconds);
  env.PGCLIENTENCODING = 'UTF8';
  if (config.password) env.PGPASSWORD = config.password;
  return env;
}
