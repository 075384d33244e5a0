import { ProviderError } from '@backplane/plugin-api';
import type { MysqlConfig } from './mysql-config.ts';

/**
 * Command lines for mysqldump and mysql: pure functions, so tests can assert that no secret
 * reaches argv. The password travels in MYSQL_PWD only (honoured by the MySQL and MariaDB
 * clients). `--no-defaults` comes first so no option file (~/.my.cnf, /etc/mysql) adds options.
 */
function connectionArgs(config: MysqlConfig): string[] {
  return [
    '--no-defaults',
    `--host=${config.host}`,
    `--port=${config.port}`,
    `--user=${config.user}`,
    '--protocol=TCP',
    '--default-character-set=utf8mb4',
  ];
}

/** A name the tools would read as an option is refused (the clients have no `--` separator). */
export function checkedDatabaseName(database: string): string {
  if (database === '' || database.startsWith('-') || database.includes('\0') || database.length > 64) {
    throw new ProviderError('permanent', `mysql: invalid database name ${JSON.stringify(database)}`);
  }
  return database;
}

/**
 * One database, without `--databases`: the dump has no CREATE DATABASE/USE, so it restores into
 * whichever database the operator names. `--single-transaction` gives a consistent InnoDB
 * snapshot without locking; `--no-tablespaces` avoids needing the PROCESS privilege (MySQL 8);
 * `--hex-blob` keeps binary columns intact whatever the connection charset.
 */
export function mysqldumpArgs(config: MysqlConfig, database: string): string[] {
  return [
    ...connectionArgs(config),
    '--single-transaction',
    '--quick',
    '--routines',
    '--triggers',
    '--events',
    '--no-tablespaces',
    '--hex-blob',
    checkedDatabaseName(database),
  ];
}

/** mysql reading a dump from stdin into `database`; batch mode stops at the first error. */
export function mysqlRestoreArgs(config: MysqlConfig, database: string): string[] {
  // mysqldump has no --connect-timeout; the mysql client does.
  return [
    ...connectionArgs(config),
    `--connect-timeout=${config.connectTimeoutSeconds}`,
    '--batch',
    `--database=${checkedDatabaseName(database)}`,
  ];
}

/** The child's environment: the parent's without MYSQL* variables, plus the password. */
export function mysqlEnv(
  base: Record<string, string | undefined>,
  config: MysqlConfig,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('MYSQL')) env[key] = value;
  if (config.password) env.MYSQL_PWD = config.password;
  return env;
}
