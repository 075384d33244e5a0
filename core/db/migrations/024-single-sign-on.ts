import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Single sign-on with OpenID Connect: the links of accounts to a provider's subjects
 * (`user_identities`, one per issuer and subject), the sign-ins sent to a provider and not yet
 * back (`oidc_logins`), and the one-time codes the callback hands the console (`oidc_login_codes`).
 */
export class Migration024SingleSignOn extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'create table `oidc_logins` (`id` integer not null primary key autoincrement, `state_hash` text not null, `provider` text not null, `payload` text not null, `expires_at` datetime not null, `used_at` datetime null, `created_at` datetime not null)',
        'create unique index `oidc_logins_state_hash_unique` on `oidc_logins` (`state_hash`)',
        'create table `oidc_login_codes` (`id` integer not null primary key autoincrement, `code_hash` text not null, `user_id` integer not null, `provider` text not null, `mfa_asserted` integer not null default false, `failures` integer not null default 0, `expires_at` datetime not null, `used_at` datetime null, `created_at` datetime not null)',
        'create unique index `oidc_login_codes_code_hash_unique` on `oidc_login_codes` (`code_hash`)',
        "create table `user_identities` (`id` integer not null primary key autoincrement, `user_id` integer not null, `provider` text not null, `issuer` text not null, `subject` text not null, `email` text not null default '', `created_at` datetime not null, `last_login_at` datetime null)",
        'create index `user_identities_user_index` on `user_identities` (`user_id`)',
        'create unique index `user_identities_issuer_subject_unique` on `user_identities` (`issuer`, `subject`)',
      ],
      postgresql: [
        'create table "oidc_logins" ("id" serial primary key, "state_hash" varchar(64) not null, "provider" varchar(64) not null, "payload" text not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null)',
        'alter table "oidc_logins" add constraint "oidc_logins_state_hash_unique" unique ("state_hash")',
        'create table "oidc_login_codes" ("id" serial primary key, "code_hash" varchar(64) not null, "user_id" int not null, "provider" varchar(64) not null, "mfa_asserted" boolean not null default false, "failures" int not null default 0, "expires_at" timestamptz not null, "used_at" timestamptz null, "created_at" timestamptz not null)',
        'alter table "oidc_login_codes" add constraint "oidc_login_codes_code_hash_unique" unique ("code_hash")',
        'create table "user_identities" ("id" serial primary key, "user_id" int not null, "provider" varchar(64) not null, "issuer" varchar(512) not null, "subject" varchar(255) not null, "email" varchar(255) not null default \'\', "created_at" timestamptz not null, "last_login_at" timestamptz null)',
        'create index "user_identities_user_index" on "user_identities" ("user_id")',
        'alter table "user_identities" add constraint "user_identities_issuer_subject_unique" unique ("issuer", "subject")',
      ],
    });
  }
}
