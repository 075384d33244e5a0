import type { Migration } from '@mikro-orm/migrations';

export type Dialect = 'sqlite' | 'postgresql';

/** Which DDL a migration must emit; server code is never minified, so the class name is stable. */
export function dialectOf(driver: { getPlatform(): object }): Dialect {
  return driver.getPlatform().constructor.name.startsWith('PostgreSql') ? 'postgresql' : 'sqlite';
}

/** Adds the statements for the migration's dialect. */
export function addDialectSql(
  migration: Migration,
  driver: { getPlatform(): object },
  sql: Record<Dialect, string[]>,
): void {
  for (const statement of sql[dialectOf(driver)]) migration.addSql(statement);
}
