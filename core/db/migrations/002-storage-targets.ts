import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Storage targets and pending OAuth authorisations. */
export class Migration002StorageTargets extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'create table `oauth_sessions` (`id` integer not null primary key autoincrement, `state_hash` text not null, `provider` text not null, `target_id` integer null, `payload` text not null, `created_by_id` integer null, `expires_at` datetime not null, `used_at` datetime null, `created_at` datetime not null)',
        'create unique index `oauth_sessions_state_hash_unique` on `oauth_sessions` (`state_hash`)',
        "create table `storage_targets` (`id` integer not null primary key autoincrement, `name` text not null, `type` text not null, `description` text not null default '', `enabled` integer not null default true, `starred` integer not null default false, `config` text not null, `secrets` text not null default '', `agent_direct_upload` integer not null default false, `quota_bytes` bigint not null default '0', `last_test_status` text not null default '', `last_test_at` datetime null, `last_test_message` text not null default '', `health_status` text not null default 'unknown', `health_checked_at` datetime null, `health_message` text not null default '', `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `storage_targets_name_unique` on `storage_targets` (`name`)',
      ],
      postgresql: [
        'create table "oauth_sessions" ("id" serial primary key, "state_hash" varchar(64) not null, "provider" varchar(64) not null, "target_id" int null, "payload" text not null, "created_by_id" int null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null)',
        'alter table "oauth_sessions" add constraint "oauth_sessions_state_hash_unique" unique ("state_hash")',
        'create table "storage_targets" ("id" serial primary key, "name" varchar(128) not null, "type" varchar(64) not null, "description" varchar(500) not null default \'\', "enabled" boolean not null default true, "starred" boolean not null default false, "config" text not null, "secrets" text not null default \'\', "agent_direct_upload" boolean not null default false, "quota_bytes" bigint not null default \'0\', "last_test_status" varchar(16) not null default \'\', "last_test_at" timestamptz null, "last_test_message" varchar(500) not null default \'\', "health_status" varchar(16) not null default \'unknown\', "health_checked_at" timestamptz null, "health_message" varchar(500) not null default \'\', "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'alter table "storage_targets" add constraint "storage_targets_name_unique" unique ("name")',
      ],
    });
  }
}
