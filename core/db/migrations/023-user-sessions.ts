import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * One row per session token (`user_sessions`, keyed by the token's `jti`): logout and revocation
 * end a session on every master. Tokens issued before this migration have no row and stop working.
 */
export class Migration023UserSessions extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `user_sessions` (`id` integer not null primary key autoincrement, `token_id` text not null, `user_id` integer not null, `user_agent` text not null default '', `ip` text not null default '', `created_at` datetime not null, `last_used_at` datetime not null, `expires_at` datetime not null, `revoked_at` datetime null)",
        'create unique index `user_sessions_token_id_unique` on `user_sessions` (`token_id`)',
        'create index `user_sessions_user_index` on `user_sessions` (`user_id`)',
      ],
      postgresql: [
        'create table "user_sessions" ("id" serial primary key, "token_id" varchar(32) not null, "user_id" int not null, "user_agent" varchar(255) not null default \'\', "ip" varchar(64) not null default \'\', "created_at" timestamptz not null, "last_used_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null)',
        'alter table "user_sessions" add constraint "user_sessions_token_id_unique" unique ("token_id")',
        'create index "user_sessions_user_index" on "user_sessions" ("user_id")',
      ],
    });
  }
}
