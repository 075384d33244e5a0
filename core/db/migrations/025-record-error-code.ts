import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

const TABLES = ['backup_records', 'backup_record_copies'];

/**
 * A stable code beside a failed run's text (and each target's): a repository that does not open
 * with its password, a damaged one, one locked past the wait (docs/repositories.md#why-a-run-failed).
 */
export class Migration025RecordErrorCode extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: TABLES.map((t) => `alter table \`${t}\` add column \`error_code\` varchar(64) not null default ''`),
      postgresql: TABLES.map((t) => `alter table "${t}" add "error_code" varchar(64) not null default ''`),
    });
  }
}
