import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Node settings (labels, concurrency, bandwidth), the last error, the previous token during a rotation's grace period, and one-time install tokens. */
export class Migration006Nodes extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'alter table `nodes` add column `previous_token_hash` text null',
        'alter table `nodes` add column `previous_token_expires_at` datetime null',
        "alter table `nodes` add column `labels` text not null default ''",
        'alter table `nodes` add column `max_concurrent` integer not null default 1',
        "alter table `nodes` add column `bandwidth_limit` text not null default ''",
        "alter table `nodes` add column `last_error` text not null default ''",
        "create table `install_tokens` (`id` integer not null primary key autoincrement, `node_id` integer not null, `token_hash` text not null, `expires_at` datetime not null, `consumed_at` datetime null, `enroll_hash` text null, `enroll_expires_at` datetime null, `enrolled_at` datetime null, `created_by` text not null default '', `created_at` datetime not null)",
        'create index `install_tokens_node_id_index` on `install_tokens` (`node_id`)',
        'create unique index `install_tokens_token_hash_unique` on `install_tokens` (`token_hash`)',
        'create unique index `install_tokens_enroll_hash_unique` on `install_tokens` (`enroll_hash`)',
      ],
      postgresql: [
        'alter table "nodes" add "previous_token_hash" varchar(64) null, add "previous_token_expires_at" timestamptz null, add "labels" varchar(500) not null default \'\', add "max_concurrent" int not null default 1, add "bandwidth_limit" varchar(32) not null default \'\', add "last_error" text not null default \'\'',
        'create table "install_tokens" ("id" serial primary key, "node_id" int not null, "token_hash" varchar(64) not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, "enroll_hash" varchar(64) null, "enroll_expires_at" timestamptz null, "enrolled_at" timestamptz null, "created_by" varchar(64) not null default \'\', "created_at" timestamptz not null)',
        'create index "install_tokens_node_id_index" on "install_tokens" ("node_id")',
        'alter table "install_tokens" add constraint "install_tokens_token_hash_unique" unique ("token_hash")',
        'alter table "install_tokens" add constraint "install_tokens_enroll_hash_unique" unique ("enroll_hash")',
      ],
    });
  }
}
