import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** A task's `diffFullIntervalDays`: how old a full may be and still be the base of a differential (default 7; migration 021 adds the mode). */
export class Migration011DiffFullInterval extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ['alter table `backup_tasks` add column `diff_full_interval_days` integer not null default 7'],
      postgresql: ['alter table "backup_tasks" add "diff_full_interval_days" int not null default 7'],
    });
  }
}
