import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** A task's `diffFullIntervalDays`, stored so clients read back what they wrote (default 7; no effect: full backups only). */
export class Migration011DiffFullInterval extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ['alter table `backup_tasks` add column `diff_full_interval_days` integer not null default 7'],
      postgresql: ['alter table "backup_tasks" add "diff_full_interval_days" int not null default 7'],
    });
  }
}
