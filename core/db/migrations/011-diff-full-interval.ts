import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** BackupX's `diffFullIntervalDays` on a task, kept so its clients read back what they wrote (default 7). */
export class Migration011DiffFullInterval extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ["alter table `backup_tasks` add column `diff_full_interval_days` integer not null default 7"],
      postgresql: ["alter table \"backup_tasks\" add \"diff_full_interval_days\" int not null default 7"],
    });
  }
}
