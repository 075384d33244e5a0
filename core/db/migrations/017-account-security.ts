import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Account security: the TOTP secret and the email/SMS code switches on the user row, and one
 * table per other factor (recovery codes, the pending login code, passkeys and their challenges,
 * trusted devices).
 */
export class Migration017AccountSecurity extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'create table `mfa_login_otps` (`id` integer not null primary key autoincrement, `user_id` integer not null, `channel` text not null, `code_hash` text not null, `failures` integer not null default 0, `expires_at` datetime not null, `created_at` datetime not null)',
        'create unique index `mfa_login_otps_user_id_unique` on `mfa_login_otps` (`user_id`)',
        "create table `webauthn_credentials` (`id` integer not null primary key autoincrement, `user_id` integer not null, `credential_id` text not null, `public_key` text not null, `sign_count` bigint not null default '0', `transports` text not null default '[]', `name` text not null, `user_verified` integer not null default false, `created_at` datetime not null, `last_used_at` datetime null)",
        'create unique index `webauthn_credentials_credential_id_unique` on `webauthn_credentials` (`credential_id`)',
        'create index `webauthn_credentials_user_index` on `webauthn_credentials` (`user_id`)',
        'create table `mfa_recovery_codes` (`id` integer not null primary key autoincrement, `user_id` integer not null, `code_hash` text not null, `used_at` datetime null, `created_at` datetime not null)',
        'create index `mfa_recovery_codes_user_index` on `mfa_recovery_codes` (`user_id`)',
        "create table `trusted_devices` (`id` integer not null primary key autoincrement, `user_id` integer not null, `token_hash` text not null, `name` text not null, `last_ip` text not null default '', `user_agent` text not null default '', `created_at` datetime not null, `last_used_at` datetime not null, `expires_at` datetime not null)",
        'create unique index `trusted_devices_token_hash_unique` on `trusted_devices` (`token_hash`)',
        'create index `trusted_devices_user_index` on `trusted_devices` (`user_id`)',
        'create table `webauthn_challenges` (`id` integer not null primary key autoincrement, `challenge` text not null, `purpose` text not null, `user_id` integer null, `expires_at` datetime not null)',
        'create unique index `webauthn_challenges_challenge_unique` on `webauthn_challenges` (`challenge`)',
        'alter table `users` add column `totp_secret` text null',
        'alter table `users` add column `totp_enabled` integer not null default false',
        'alter table `users` add column `totp_last_step` bigint null',
        'alter table `users` add column `email_otp_enabled` integer not null default false',
        'alter table `users` add column `sms_otp_enabled` integer not null default false',
        'alter table `users` add column `mfa_grace_started_at` datetime null',
      ],
      postgresql: [
        'create table "mfa_login_otps" ("id" serial primary key, "user_id" int not null, "channel" varchar(8) not null, "code_hash" varchar(255) not null, "failures" int not null default 0, "expires_at" timestamptz not null, "created_at" timestamptz not null)',
        'alter table "mfa_login_otps" add constraint "mfa_login_otps_user_id_unique" unique ("user_id")',
        'create table "webauthn_credentials" ("id" serial primary key, "user_id" int not null, "credential_id" varchar(1024) not null, "public_key" text not null, "sign_count" bigint not null default \'0\', "transports" varchar(255) not null default \'[]\', "name" varchar(128) not null, "user_verified" boolean not null default false, "created_at" timestamptz not null, "last_used_at" timestamptz null)',
        'alter table "webauthn_credentials" add constraint "webauthn_credentials_credential_id_unique" unique ("credential_id")',
        'create index "webauthn_credentials_user_index" on "webauthn_credentials" ("user_id")',
        'create table "mfa_recovery_codes" ("id" serial primary key, "user_id" int not null, "code_hash" varchar(255) not null, "used_at" timestamptz null, "created_at" timestamptz not null)',
        'create index "mfa_recovery_codes_user_index" on "mfa_recovery_codes" ("user_id")',
        'create table "trusted_devices" ("id" serial primary key, "user_id" int not null, "token_hash" varchar(64) not null, "name" varchar(128) not null, "last_ip" varchar(64) not null default \'\', "user_agent" varchar(255) not null default \'\', "created_at" timestamptz not null, "last_used_at" timestamptz not null, "expires_at" timestamptz not null)',
        'alter table "trusted_devices" add constraint "trusted_devices_token_hash_unique" unique ("token_hash")',
        'create index "trusted_devices_user_index" on "trusted_devices" ("user_id")',
        'create table "webauthn_challenges" ("id" serial primary key, "challenge" varchar(128) not null, "purpose" varchar(16) not null, "user_id" int null, "expires_at" timestamptz not null)',
        'alter table "webauthn_challenges" add constraint "webauthn_challenges_challenge_unique" unique ("challenge")',
        'alter table "users" add "totp_secret" text null, add "totp_enabled" boolean not null default false, add "totp_last_step" bigint null, add "email_otp_enabled" boolean not null default false, add "sms_otp_enabled" boolean not null default false, add "mfa_grace_started_at" timestamptz null',
      ],
    });
  }
}
