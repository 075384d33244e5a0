import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * At most one queued or running backup record per task, kept by the database itself: several
 * masters on one database (or two requests at once on one) cannot both start a task, whichever
 * master receives them. A partial unique index, in both dialects. Records that already break the
 * rule (only a bug could have made them) keep the newest; the older ones are failed first, as
 * start-up recovery would fail them.
 */
export class Migration019OneActiveBackup extends Migration {
  override up(): void {
    // SQLite keeps datetimes as epoch milliseconds (the ORM's mapping), PostgreSQL as timestamptz.
    const settle = (now: string): string => `update backup_records set status = 'failed', completed_at = ${now},
      error_message = 'Another run of this task was active at the same time; failed on upgrade (one active run per task).'
      where status in ('queued', 'running') and id not in (
        select max(id) from backup_records where status in ('queued', 'running') group by task_id)`;
    const index =
      "create unique index backup_records_one_active on backup_records (task_id) where status in ('queued', 'running')";
    addDialectSql(this, this.driver, {
      sqlite: [settle("cast(strftime('%s', 'now') as integer) * 1000"), index],
      postgresql: [settle('now()'), index],
    });
  }
}
