import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Backup records, their per-target copies, run logs, the file manifests of file artifacts, and the task's last cron fire. */
export class Migration004BackupRecords extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `backup_records` (`id` integer not null primary key autoincrement, `task_id` integer not null, `task_name` text not null, `type` text not null, `node_id` integer not null default 0, `status` text not null default 'queued', `trigger` text not null default 'manual', `triggered_by` text not null default 'system', `file_name` text not null default '', `file_size` bigint not null default '0', `raw_size` bigint not null default '0', `checksum` text not null default '', `storage_path` text not null default '', `compression` text not null default 'zstd', `encrypted` integer not null default false, `has_manifest` integer not null default false, `error_message` text not null default '', `locked` integer not null default false, `delete_requested_at` datetime null, `queued_at` datetime not null, `started_at` datetime null, `completed_at` datetime null, `duration_ms` integer not null default 0)",
        'create index `backup_records_task_id_status_index` on `backup_records` (`task_id`, `status`)',
        'create index `backup_records_status_index` on `backup_records` (`status`)',
        'create index `backup_records_started_at_index` on `backup_records` (`started_at`)',
        "create table `backup_record_copies` (`id` integer not null primary key autoincrement, `record_id` integer not null, `storage_target_id` integer not null, `storage_target_name` text not null, `status` text not null default 'pending', `storage_path` text not null default '', `file_size` bigint not null default '0', `attempts` integer not null default 0, `error` text not null default '', `updated_at` datetime not null)",
        'create index `backup_record_copies_record_id_index` on `backup_record_copies` (`record_id`)',
        'create index `backup_record_copies_storage_target_id_status_index` on `backup_record_copies` (`storage_target_id`, `status`)',
        "create table `backup_record_entries` (`id` integer not null primary key autoincrement, `record_id` integer not null, `path` text not null, `size` bigint not null default '0', `mtime` datetime not null, `mode` integer not null default 0, `entry_type` text not null)",
        'create index `backup_record_entries_record_id_path_index` on `backup_record_entries` (`record_id`, `path`)',
        "create table `record_logs` (`id` integer not null primary key autoincrement, `record_kind` text not null default 'backup', `record_id` integer not null, `seq` integer not null, `level` text not null, `message` text not null, `created_at` datetime not null)",
        'create index `record_logs_record_kind_record_id_seq_index` on `record_logs` (`record_kind`, `record_id`, `seq`)',
        'alter table `backup_tasks` add column `last_scheduled_at` datetime null',
      ],
      postgresql: [
        'create table "backup_records" ("id" serial primary key, "task_id" int not null, "task_name" varchar(100) not null, "type" varchar(64) not null, "node_id" int not null default 0, "status" varchar(16) not null default \'queued\', "trigger" varchar(16) not null default \'manual\', "triggered_by" varchar(100) not null default \'system\', "file_name" varchar(255) not null default \'\', "file_size" bigint not null default \'0\', "raw_size" bigint not null default \'0\', "checksum" varchar(64) not null default \'\', "storage_path" varchar(500) not null default \'\', "compression" varchar(8) not null default \'zstd\', "encrypted" boolean not null default false, "has_manifest" boolean not null default false, "error_message" text not null default \'\', "locked" boolean not null default false, "delete_requested_at" timestamptz null, "queued_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, "duration_ms" int not null default 0)',
        'create index "backup_records_task_id_status_index" on "backup_records" ("task_id", "status")',
        'create index "backup_records_status_index" on "backup_records" ("status")',
        'create index "backup_records_started_at_index" on "backup_records" ("started_at")',
        'create table "backup_record_copies" ("id" serial primary key, "record_id" int not null, "storage_target_id" int not null, "storage_target_name" varchar(100) not null, "status" varchar(16) not null default \'pending\', "storage_path" varchar(500) not null default \'\', "file_size" bigint not null default \'0\', "attempts" int not null default 0, "error" text not null default \'\', "updated_at" timestamptz not null)',
        'create index "backup_record_copies_record_id_index" on "backup_record_copies" ("record_id")',
        'create index "backup_record_copies_storage_target_id_status_index" on "backup_record_copies" ("storage_target_id", "status")',
        'create table "backup_record_entries" ("id" serial primary key, "record_id" int not null, "path" text not null, "size" bigint not null default \'0\', "mtime" timestamptz not null, "mode" int not null default 0, "entry_type" varchar(16) not null)',
        'create index "backup_record_entries_record_id_path_index" on "backup_record_entries" ("record_id", "path")',
        'create table "record_logs" ("id" serial primary key, "record_kind" varchar(16) not null default \'backup\', "record_id" int not null, "seq" int not null, "level" varchar(8) not null, "message" text not null, "created_at" timestamptz not null)',
        'create index "record_logs_record_kind_record_id_seq_index" on "record_logs" ("record_kind", "record_id", "seq")',
        'alter table "backup_tasks" add "last_scheduled_at" timestamptz null',
      ],
    });
  }
}
