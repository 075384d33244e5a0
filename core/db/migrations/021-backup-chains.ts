import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Backups that store only what changed (docs/differential.md, docs/repositories.md): a task's
 * `backup_mode`, a record's `backup_kind` and the full it builds on (`base_record_id`, 0 = none),
 * the sealed GNU tar snapshot file of every differential-mode full, the restic repository of each
 * task and target with its sealed password, and a copy's restic snapshot id.
 */
export class Migration021BackupChains extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        "alter table `backup_tasks` add column `backup_mode` text not null default 'full'",
        "alter table `backup_records` add column `backup_kind` text not null default 'full'",
        'alter table `backup_records` add column `base_record_id` integer not null default 0',
        'create index `backup_records_base_index` on `backup_records` (`base_record_id`)',
        'create table `backup_record_snapshots` (`record_id` integer not null primary key, ' +
          "`checksum` text not null default '', `size` bigint not null default '0', `sealed` text not null)",
        "alter table `backup_record_copies` add column `snapshot_id` text not null default ''",
        'create table `repositories` (`id` integer not null primary key autoincrement, `task_id` integer not null, ' +
          '`storage_target_id` integer not null, `prefix` text not null, `sealed_password` text not null, ' +
          '`created_at` datetime not null, `prune_requested_at` datetime null)',
        'create unique index `repositories_task_id_storage_target_id_unique` on `repositories` (`task_id`, `storage_target_id`)',
      ],
      postgresql: [
        `alter table "backup_tasks" add "backup_mode" varchar(16) not null default 'full'`,
        `alter table "backup_records" add "backup_kind" varchar(16) not null default 'full'`,
        'alter table "backup_records" add "base_record_id" int not null default 0',
        'create index "backup_records_base_index" on "backup_records" ("base_record_id")',
        'create table "backup_record_snapshots" ("record_id" int not null primary key, ' +
          `"checksum" varchar(64) not null default '', "size" bigint not null default '0', "sealed" text not null)`,
        `alter table "backup_record_copies" add "snapshot_id" varchar(64) not null default ''`,
        'create table "repositories" ("id" serial primary key, "task_id" int not null, "storage_target_id" int not null, ' +
          '"prefix" varchar(500) not null, "sealed_password" text not null, "created_at" timestamptz not null, ' +
          '"prune_requested_at" timestamptz null)',
        'alter table "repositories" add constraint "repositories_task_id_storage_target_id_unique" unique ("task_id", "storage_target_id")',
      ],
    });
  }
}
