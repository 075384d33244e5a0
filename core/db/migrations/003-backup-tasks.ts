import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/** Backup tasks and their ordered storage targets. */
export class Migration003BackupTasks extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "create table `backup_tasks` (`id` integer not null primary key autoincrement, `name` text not null, `type` text not null, `enabled` integer not null default true, `cron_expr` text not null default '', `source_paths` text not null default '[]', `exclude_patterns` text not null default '[]', `db_host` text not null default '', `db_port` integer not null default 0, `db_user` text not null default '', `db_name` text not null default '', `db_path` text not null default '', `db_password` text not null default '', `node_id` integer not null default 0, `tags` text not null default '', `retention_days` integer not null default 30, `max_backups` integer not null default 10, `keep_daily` integer not null default 0, `keep_weekly` integer not null default 0, `keep_monthly` integer not null default 0, `keep_yearly` integer not null default 0, `compression` text not null default 'zstd', `encrypt` integer not null default true, `sla_hours_rpo` integer not null default 0, `rto_minutes` integer not null default 0, `alert_on_consecutive_fails` integer not null default 1, `verify_enabled` integer not null default false, `verify_cron_expr` text not null default '', `verify_mode` text not null default 'quick', `maintenance_windows` text not null default '', `depends_on_task_ids` text not null default '[]', `last_run_at` datetime null, `last_status` text not null default 'idle', `created_at` datetime not null, `updated_at` datetime not null)",
        'create unique index `backup_tasks_name_unique` on `backup_tasks` (`name`)',
        'create table `backup_task_targets` (`id` integer not null primary key autoincrement, `task_id` integer not null, `storage_target_id` integer not null, `position` integer not null default 0)',
        'create index `backup_task_targets_storage_target_id_index` on `backup_task_targets` (`storage_target_id`)',
        'create unique index `backup_task_targets_task_id_storage_target_id_unique` on `backup_task_targets` (`task_id`, `storage_target_id`)',
      ],
      postgresql: [
        'create table "backup_tasks" ("id" serial primary key, "name" varchar(100) not null, "type" varchar(64) not null, "enabled" boolean not null default true, "cron_expr" varchar(64) not null default \'\', "source_paths" text not null default \'[]\', "exclude_patterns" text not null default \'[]\', "db_host" varchar(255) not null default \'\', "db_port" int not null default 0, "db_user" varchar(100) not null default \'\', "db_name" varchar(255) not null default \'\', "db_path" varchar(500) not null default \'\', "db_password" text not null default \'\', "node_id" int not null default 0, "tags" varchar(500) not null default \'\', "retention_days" int not null default 30, "max_backups" int not null default 10, "keep_daily" int not null default 0, "keep_weekly" int not null default 0, "keep_monthly" int not null default 0, "keep_yearly" int not null default 0, "compression" varchar(8) not null default \'zstd\', "encrypt" boolean not null default true, "sla_hours_rpo" int not null default 0, "rto_minutes" int not null default 0, "alert_on_consecutive_fails" int not null default 1, "verify_enabled" boolean not null default false, "verify_cron_expr" varchar(64) not null default \'\', "verify_mode" varchar(8) not null default \'quick\', "maintenance_windows" varchar(500) not null default \'\', "depends_on_task_ids" text not null default \'[]\', "last_run_at" timestamptz null, "last_status" varchar(16) not null default \'idle\', "created_at" timestamptz not null, "updated_at" timestamptz not null)',
        'alter table "backup_tasks" add constraint "backup_tasks_name_unique" unique ("name")',
        'create table "backup_task_targets" ("id" serial primary key, "task_id" int not null, "storage_target_id" int not null, "position" int not null default 0)',
        'create index "backup_task_targets_storage_target_id_index" on "backup_task_targets" ("storage_target_id")',
        'alter table "backup_task_targets" add constraint "backup_task_targets_task_id_storage_target_id_unique" unique ("task_id", "storage_target_id")',
      ],
    });
  }
}
