import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** A per-task run time limit (`timeoutMinutes`, 0 = none). */
export class Migration010RunTimeLimit extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ['alter table `backup_tasks` add column `timeout_minutes` integer not null default 0'],
      postgresql: ['alter table "backup_tasks" add "timeout_minutes" int not null default 0'],
    });
  }
}
