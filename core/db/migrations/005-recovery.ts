import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Restore, verification and replication records; task templates; replication targets on tasks; source facts on records; copy origins. */
export class Migration005Recovery extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `replication_records` (`id` integer not null primary key autoincrement, `backup_record_id` integer not null, `task_id` integer not null, `task_name` text not null default '', `source_target_id` integer not null default 0, `source_target_name` text not null default '', `dest_target_id` integer not null, `dest_target_name` text not null, `status` text not null default 'queued', `storage_path` text not null default '', `file_size` bigint not null default '0', `checksum` text not null default '', `triggered_by` text not null default 'system', `error_message` text not null default '', `queued_at` datetime not null, `started_at` datetime null, `completed_at` datetime null, `duration_ms` integer not null default 0)",
        'create index `replication_records_backup_record_id_index` on `replication_records` (`backup_record_id`)',
        "create table `restore_records` (`id` integer not null primary key autoincrement, `backup_record_id` integer not null, `task_id` integer not null, `task_name` text not null, `type` text not null, `node_id` integer not null default 0, `status` text not null default 'queued', `target_path` text not null default '', `target_database` text not null default '', `selected_paths` text not null default '[]', `source_target_id` integer not null default 0, `source_target_name` text not null default '', `bytes` bigint not null default '0', `entries` integer not null default 0, `triggered_by` text not null default 'system', `error_message` text not null default '', `queued_at` datetime not null, `started_at` datetime null, `completed_at` datetime null, `duration_ms` integer not null default 0)",
        'create index `restore_records_backup_record_id_index` on `restore_records` (`backup_record_id`)',
        'create index `restore_records_status_index` on `restore_records` (`status`)',
        "create table `task_templates` (`id` integer not null primary key autoincrement, `name` text not null, `description` text not null default '', `task_type` text not null, `payload` text not null, `secrets` text not null default '', `created_by` text not null default '', `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `task_templates_name_unique` on `task_templates` (`name`)',
        "create table `verify_records` (`id` integer not null primary key autoincrement, `backup_record_id` integer not null, `task_id` integer not null, `task_name` text not null, `type` text not null, `node_id` integer not null default 0, `mode` text not null default 'quick', `status` text not null default 'queued', `summary` text not null default '', `restore_ms` integer null, `source_target_id` integer not null default 0, `source_target_name` text not null default '', `triggered_by` text not null default 'system', `error_message` text not null default '', `queued_at` datetime not null, `started_at` datetime null, `completed_at` datetime null, `duration_ms` integer not null default 0)",
        'create index `verify_records_backup_record_id_index` on `verify_records` (`backup_record_id`)',
        'create index `verify_records_task_id_status_index` on `verify_records` (`task_id`, `status`)',
        "alter table `backup_records` add column `source_stats` text not null default ''",
        "alter table `backup_record_copies` add column `origin` text not null default 'primary'",
        "alter table `backup_tasks` add column `replication_target_ids` text not null default '[]'",
      ],
      postgresql: [
        'create table "replication_records" ("id" serial primary key, "backup_record_id" int not null, "task_id" int not null, "task_name" varchar(100) not null default \'\', "source_target_id" int not null default 0, "source_target_name" varchar(100) not null default \'\', "dest_target_id" int not null, "dest_target_name" varchar(100) not null, "status" varchar(16) not null default \'queued\', "storage_path" varchar(500) not null default \'\', "file_size" bigint not null default \'0\', "checksum" varchar(64) not null default \'\', "triggered_by" varchar(100) not null default \'system\', "error_message" text not null default \'\', "queued_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "duration_ms" int not null default 0)',
        'create index "replication_records_backup_record_id_index" on "replication_records" ("backup_record_id")',
        'create table "restore_records" ("id" serial primary key, "backup_record_id" int not null, "task_id" int not null, "task_name" varchar(100) not null, "type" varchar(64) not null, "node_id" int not null default 0, "status" varchar(16) not null default \'queued\', "target_path" varchar(4096) not null default \'\', "target_database" varchar(255) not null default \'\', "selected_paths" text not null default \'[]\', "source_target_id" int not null default 0, "source_target_name" varchar(100) not null default \'\', "bytes" bigint not null default \'0\', "entries" int not null default 0, "triggered_by" varchar(100) not null default \'system\', "error_message" text not null default \'\', "queued_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "duration_ms" int not null default 0)',
        'create index "restore_records_backup_record_id_index" on "restore_records" ("backup_record_id")',
        'create index "restore_records_status_index" on "restore_records" ("status")',
        'create table "task_templates" ("id" serial primary key, "name" varchar(128) not null, "description" varchar(500) not null default \'\', "task_type" varchar(64) not null, "payload" text not null, "secrets" text not null default \'\', "created_by" varchar(128) not null default \'\', "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'alter table "task_templates" add constraint "task_templates_name_unique" unique ("name")',
        'create table "verify_records" ("id" serial primary key, "backup_record_id" int not null, "task_id" int not null, "task_name" varchar(100) not null, "type" varchar(64) not null, "node_id" int not null default 0, "mode" varchar(8) not null default \'quick\', "status" varchar(16) not null default \'queued\', "summary" varchar(500) not null default \'\', "restore_ms" int null, "source_target_id" int not null default 0, "source_target_name" varchar(100) not null default \'\', "triggered_by" varchar(100) not null default \'system\', "error_message" text not null default \'\', "queued_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "duration_ms" int not null default 0)',
        'create index "verify_records_backup_record_id_index" on "verify_records" ("backup_record_id")',
        'create index "verify_records_task_id_status_index" on "verify_records" ("task_id", "status")',
        'alter table "backup_records" add "source_stats" text not null default \'\'',
        'alter table "backup_record_copies" add "origin" varchar(16) not null default \'primary\'',
        'alter table "backup_tasks" add "replication_target_ids" text not null default \'[]\'',
      ],
    });
  }
}
