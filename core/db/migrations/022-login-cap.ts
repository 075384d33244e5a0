import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * The cap on failed sign-ins (docs/account-security.md#the-cap-on-failed-sign-ins): the account's failures in a row
 * and its lock on the user row, the clients that signed in before (`login_devices`), the failures
 * of each trusted device, and the leases that serialise attempts across masters (`login_leases`).
 */
export class Migration022LoginCap extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'create table `login_devices` (`id` integer not null primary key autoincrement, `user_id` integer not null, `token_hash` text not null, `failures` integer not null default 0, `created_at` datetime not null, `last_used_at` datetime not null, `expires_at` datetime not null)',
        'create unique index `login_devices_token_hash_unique` on `login_devices` (`token_hash`)',
        'create index `login_devices_user_index` on `login_devices` (`user_id`)',
        'create table `login_leases` (`lane` text not null primary key, `holder` text not null, `expires_at` datetime not null)',
        'alter table `trusted_devices` add column `failures` integer not null default 0',
        'alter table `users` add column `failed_login_count` integer not null default 0',
        'alter table `users` add column `locked_until` datetime null',
      ],
      postgresql: [
        'create table "login_devices" ("id" serial primary key, "user_id" int not null, "token_hash" varchar(64) not null, "failures" int not null default 0, "created_at" timestamptz not null, "last_used_at" timestamptz not null, "expires_at" timestamptz not null)',
        'alter table "login_devices" add constraint "login_devices_token_hash_unique" unique ("token_hash")',
        'create index "login_devices_user_index" on "login_devices" ("user_id")',
        'create table "login_leases" ("lane" varchar(64) not null, "holder" varchar(32) not null, "expires_at" timestamptz not null, primary key ("lane"))',
        'alter table "trusted_devices" add "failures" int not null default 0',
        'alter table "users" add "failed_login_count" int not null default 0, add "locked_until" timestamptz null',
      ],
    });
  }
}
