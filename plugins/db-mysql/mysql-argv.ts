import { ProviderError, toolEnv } from '@backplane/plugin-api';
import type { MysqlConfig } from './mysql-config.ts';

/**
 * Command lines and environments for mysqldump and mysql: pure functions, so tests can assert
 * that no secret reaches argv or an environment. The password travels in an option file of its
 * own, named by `--defaults-file` (read by the MySQL and MariaDB clients alike): an environment
 * variable (MYSQL_PWD) would be inherited by whatever the tool starts and sit in /proc meanwhile.
 * `--defaults-file` rather than `--defaults-extra-file`: it reads that file and no other, so no
 * option file of the machine (~/.my.cnf, /etc/mysql) adds options, as `--no-defaults` ensures
 * when there is no password. Either must be the first argument, or the clients refuse it.
 */
function connectionArgs(config: MysqlConfig, optionFile: string | undefined): string[] {
  return [
    optionFile === undefined ? '--no-defaults' : `--defaults-file=${optionFile}`,
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
export function mysqldumpArgs(config: MysqlConfig, database: string, optionFile?: string): string[] {
  return [
    ...connectionArgs(config, optionFile),
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
export function mysqlRestoreArgs(config: MysqlConfig, database: string, optionFile?: string): string[] {
  // mysqldump has no --connect-timeout; the mysql client does.
  return [
    ...connectionArgs(config, optionFile),
    `--connect-timeout=${config.connectTimeoutSeconds}`,
    '--batch',
    `--database=${checkedDatabaseName(database)}`,
  ];
}

/** The child's environment: the few variables tools get from this process (no MYSQL_* of ours). */
export function mysqlEnv(base: Record<string, string | undefined>): Record<string, string> {
  return toolEnv(base);
}

/** The escapes the clients' option-file reader undoes inside a quoted value. */
const OPTION_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
};

/**
 * The option file holding the password: `[client]`, read by mysqldump and mysql. The value is
 * double-quoted (so `#` is no comment and outer blanks stay) with `\`, `"` and control
 * characters escaped as the clients' reader undoes them. NUL cannot be written; it is refused.
 */
export function mysqlOptionFile(password: string): string {
  if (password.includes('\0'))
    throw new ProviderError(
      'permanent',
      'mysql: the password holds a NUL byte, which mysqldump and mysql cannot be given',
    );
  return `[client]\npassword="${password.replace(/[\\"\n\r\t\b]/g, (c) => OPTION_ESCAPES[c]!)}"\n`;
}
