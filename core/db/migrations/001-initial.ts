import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Users, API keys, audit log, settings and nodes. */
export class Migration001Initial extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `api_keys` (`id` integer not null primary key autoincrement, `name` text not null, `role` text check (`role` in ('admin', 'operator', 'viewer')) not null, `prefix` text not null, `key_hash` text not null, `created_by_id` integer null, `created_by_name` text not null default '', `last_used_at` datetime null, `expires_at` datetime null, `disabled` integer not null default false, `created_at` datetime not null)",
        'create unique index `api_keys_key_hash_unique` on `api_keys` (`key_hash`)',
        "create table `audit_logs` (`id` integer not null primary key autoincrement, `user_id` integer null, `username` text not null default '', `category` text not null, `action` text not null, `target_type` text not null default '', `target_id` text not null default '', `target_name` text not null default '', `detail` text not null default '', `client_ip` text not null default '', `created_at` datetime not null)",
        'create index `audit_logs_created_at_index` on `audit_logs` (`created_at`)',
        'create index `audit_logs_category_action_index` on `audit_logs` (`category`, `action`)',
        "create table `nodes` (`id` integer not null primary key autoincrement, `name` text not null, `is_local` integer not null default false, `token_hash` text null, `hostname` text not null default '', `ip_address` text not null default '', `os` text not null default '', `arch` text not null default '', `agent_version` text not null default '', `last_seen_at` datetime null, `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `nodes_name_unique` on `nodes` (`name`)',
        'create unique index `nodes_token_hash_unique` on `nodes` (`token_hash`)',
        'create table `settings` (`key` text not null primary key, `value` text not null, `updated_at` datetime not null)',
        "create table `users` (`id` integer not null primary key autoincrement, `username` text not null, `password_hash` text not null, `display_name` text not null, `email` text not null default '', `phone` text not null default '', `role` text check (`role` in ('admin', 'operator', 'viewer')) not null default 'viewer', `disabled` integer not null default false, `token_version` integer not null default 1, `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `users_username_unique` on `users` (`username`)',
      ],
      postgresql: [
        'create table "api_keys" ("id" serial primary key, "name" varchar(128) not null, "role" text not null, "prefix" varchar(16) not null, "key_hash" varchar(64) not null, "created_by_id" int null, "created_by_name" varchar(64) not null default \'\', "last_used_at" timestamptz null, "expires_at" timestamptz null, "disabled" boolean not null default false, "created_at" timestamptz not null)',
        'alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash")',
        'alter table "api_keys" add constraint "api_keys_role_check" check ("role" in (\'admin\', \'operator\', \'viewer\'))',
        'create table "audit_logs" ("id" serial primary key, "user_id" int null, "username" varchar(128) not null default \'\', "category" varchar(64) not null, "action" varchar(64) not null, "target_type" varchar(64) not null default \'\', "target_id" varchar(64) not null default \'\', "target_name" varchar(255) not null default \'\', "detail" text not null default \'\', "client_ip" varchar(64) not null default \'\', "created_at" timestamptz not null)',
        'create index "audit_logs_created_at_index" on "audit_logs" ("created_at")',
        'create index "audit_logs_category_action_index" on "audit_logs" ("category", "action")',
        'create table "nodes" ("id" serial primary key, "name" varchar(128) not null, "is_local" boolean not null default false, "token_hash" varchar(64) null, "hostname" varchar(255) not null default \'\', "ip_address" varchar(64) not null default \'\', "os" varchar(64) not null default \'\', "arch" varchar(64) not null default \'\', "agent_version" varchar(64) not null default \'\', "last_seen_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'alter table "nodes" add constraint "nodes_name_unique" unique ("name")',
        'alter table "nodes" add constraint "nodes_token_hash_unique" unique ("token_hash")',
        'create table "settings" ("key" varchar(128) not null, "value" text not null, "updated_at" timestamptz not null, primary key ("key"))',
        'create table "users" ("id" serial primary key, "username" varchar(64) not null, "password_hash" varchar(255) not null, "display_name" varchar(128) not null, "email" varchar(255) not null default \'\', "phone" varchar(64) not null default \'\', "role" text not null default \'viewer\', "disabled" boolean not null default false, "token_version" int not null default 1, "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'alter table "users" add constraint "users_username_unique" unique ("username")',
        'alter table "users" add constraint "users_role_check" check ("role" in (\'admin\', \'operator\', \'viewer\'))',
      ],
    });
  }
}
