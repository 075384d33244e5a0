import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Notification channels, the outbox of events to notify, one delivery per event and channel
 * (unique: fanning an event out twice cannot deliver it twice) and the log of attempts.
 */
export class Migration015Notifications extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `notification_channels` (`id` integer not null primary key autoincrement, `name` text not null, `type` text not null, `enabled` integer not null default true, `on_success` integer not null default false, `on_failure` integer not null default true, `event_types` text not null default '[]', `config` text not null, `secrets` text not null default '', `digest` text not null default '', `digest_time` text not null default '08:00', `last_digest_at` datetime null, `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `notification_channels_name_unique` on `notification_channels` (`name`)',
        "create table `notification_events` (`id` integer not null primary key autoincrement, `type` text not null, `severity` text not null, `subject` text not null default '', `title` text not null, `body` text not null, `fields` text not null, `link_path` text not null default '', `occurred_at` datetime not null, `dispatched_at` datetime null)",
        'create index `notification_events_dispatched_at_index` on `notification_events` (`dispatched_at`)',
        'create index `notification_events_type_subject_index` on `notification_events` (`type`, `subject`, `occurred_at`)',
        "create table `notification_deliveries` (`id` integer not null primary key autoincrement, `event_id` integer not null, `channel_id` integer not null, `event_type` text not null, `subject` text not null default '', `status` text not null, `attempts` integer not null default 0, `next_attempt_at` datetime null, `last_error` text not null default '', `coalesced_count` integer not null default 0, `merged_into` integer null, `delivered_at` datetime null, `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `notification_deliveries_event_channel_unique` on `notification_deliveries` (`event_id`, `channel_id`)',
        'create index `notification_deliveries_status_next_index` on `notification_deliveries` (`status`, `next_attempt_at`)',
        'create index `notification_deliveries_channel_index` on `notification_deliveries` (`channel_id`, `event_type`, `subject`, `created_at`)',
        "create table `notification_attempts` (`id` integer not null primary key autoincrement, `delivery_id` integer not null, `channel_id` integer not null, `attempt` integer not null, `outcome` text not null, `error_kind` text not null default '', `error` text not null default '', `duration_ms` integer not null, `at` datetime not null)",
        'create index `notification_attempts_delivery_index` on `notification_attempts` (`delivery_id`)',
      ],
      postgresql: [
        'create table "notification_channels" ("id" serial primary key, "name" varchar(100) not null, "type" varchar(64) not null, "enabled" boolean not null default true, "on_success" boolean not null default false, "on_failure" boolean not null default true, "event_types" text not null default \'[]\', "config" text not null, "secrets" text not null default \'\', "digest" varchar(16) not null default \'\', "digest_time" varchar(5) not null default \'08:00\', "last_digest_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'create unique index "notification_channels_name_unique" on "notification_channels" ("name")',
        'create table "notification_events" ("id" serial primary key, "type" varchar(64) not null, "severity" varchar(16) not null, "subject" varchar(128) not null default \'\', "title" varchar(500) not null, "body" text not null, "fields" text not null, "link_path" varchar(500) not null default \'\', "occurred_at" timestamptz not null, "dispatched_at" timestamptz null)',
        'create index "notification_events_dispatched_at_index" on "notification_events" ("dispatched_at")',
        'create index "notification_events_type_subject_index" on "notification_events" ("type", "subject", "occurred_at")',
        'create table "notification_deliveries" ("id" serial primary key, "event_id" int not null, "channel_id" int not null, "event_type" varchar(64) not null, "subject" varchar(128) not null default \'\', "status" varchar(16) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz null, "last_error" varchar(1000) not null default \'\', "coalesced_count" int not null default 0, "merged_into" int null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'create unique index "notification_deliveries_event_channel_unique" on "notification_deliveries" ("event_id", "channel_id")',
        'create index "notification_deliveries_status_next_index" on "notification_deliveries" ("status", "next_attempt_at")',
        'create index "notification_deliveries_channel_index" on "notification_deliveries" ("channel_id", "event_type", "subject", "created_at")',
        'create table "notification_attempts" ("id" serial primary key, "delivery_id" int not null, "channel_id" int not null, "attempt" int not null, "outcome" varchar(16) not null, "error_kind" varchar(16) not null default \'\', "error" varchar(1000) not null default \'\', "duration_ms" int not null, "at" timestamptz not null)',
        'create index "notification_attempts_delivery_index" on "notification_attempts" ("delivery_id")',
      ],
    });
  }
}
