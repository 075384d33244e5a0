import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Backups that store only what changed (docs/differential.md): a task's `backup_mode`, a record's
 * `backup_kind` and the full it builds on (`base_record_id`, 0 = none), and the sealed GNU tar
 * snapshot file of every differential-mode full, which its differentials are made against.
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
      ],
      postgresql: [
        `alter table "backup_tasks" add "backup_mode" varchar(16) not null default 'full'`,
        `alter table "backup_records" add "backup_kind" varchar(16) not null default 'full'`,
        'alter table "backup_records" add "base_record_id" int not null default 0',
        'create index "backup_records_base_index" on "backup_records" ("base_record_id")',
        'create table "backup_record_snapshots" ("record_id" int not null primary key, ' +
          `"checksum" varchar(64) not null default '', "size" bigint not null default '0', "sealed" text not null)`,
      ],
    });
  }
}
