import { ProviderError, toolEnv } from '@backplane/plugin-api';
import type { PostgresConfig } from './postgres-config.ts';

/**
 * Command lines and environments for pg_dump and psql: pure functions, so tests can assert that
 * no secret ever reaches argv (visible to every local user in `ps`) or an environment (inherited
 * by every program the tool starts, and readable in /proc while it runs). The password travels
 * in a pgpass file named by PGPASSFILE, read by libpq in the one process that connects.
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

/**
 * The child's environment: the few variables tools get from this process (no PG* of ours, which
 * would redirect the tool), a connect timeout, and the pgpass file when there is a password.
 * Without one, libpq falls back to the service user's ~/.pgpass, as it always did.
 */
export function pgEnv(
  base: Record<string, string | undefined>,
  config: PostgresConfig,
  passFile?: string,
): Record<string, string> {
  return toolEnv(base, {
    PGCONNECT_TIMEOUT: String(config.connectTimeoutSeconds),
    PGCLIENTENCODING: 'UTF8',
    PGPASSFILE: passFile,
  });
}

/**
 * The pgpass file for one connection: one line that matches any host, port, database and user
 * (the file is made for this one command), with `:` and `\` escaped as libpq reads them. A line
 * break cannot be written in the format; such a password is refused rather than cut short.
 */
export function pgpassContent(password: string): string {
  if (/[\r\n\0]/.test(password))
    throw new ProviderError(
      'permanent',
      'postgresql: the password holds a line break or NUL, which pg_dump and psql cannot be given',
    );
  return `*:*:*:*:${password.replace(/[\\:]/g, '\\$&')}\n`;
}
