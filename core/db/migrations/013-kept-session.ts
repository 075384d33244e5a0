import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** The session a user's own password change keeps open while it revokes the others (`users.kept_session_id`). */
export class Migration013KeptSession extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: ['alter table `users` add column `kept_session_id` text null'],
      postgresql: ['alter table "users" add "kept_session_id" varchar(32) null'],
    });
  }
}
