import { Migration } from '@mikro-orm/migrations';
import { addDialectSql } from './dialect.ts';

/**
 * Indexes for the read models at 100 000 records (bench/insight.ts): a task's newest record and
 * newest success are one index probe each, windows of the history and bytes per target are
 * counted from indexes alone. And a substring index for searching records by task name, file
 * name or path over the whole history: SQLite's FTS5 with the trigram tokenizer (an
 * external-content table kept in step by triggers), PostgreSQL's pg_trgm GIN indexes (a
 * trusted extension: the database owner may create it).
 */
export class Migration018InsightIndexes extends Migration {
  override up(): void {
    addDialectSql(this, this.driver, {
      sqlite: [
        'create index `backup_records_task_latest_index` on `backup_records` (`task_id`, `status`, `id`)',
        'create index `backup_records_task_id_index` on `backup_records` (`task_id`, `id`)',
        'create index `backup_records_window_index` on `backup_records` (`started_at`, `status`, `task_id`, `node_id`)',
        'create index `backup_record_copies_usage_index` on `backup_record_copies` (`status`, `storage_target_id`, `file_size`)',
        'create index `verify_records_task_mode_index` on `verify_records` (`task_id`, `mode`, `id`)',
        "create virtual table `backup_records_search` using fts5(task_name, file_name, storage_path, content='backup_records', content_rowid='id', tokenize='trigram')",
        'create trigger `backup_records_search_insert` after insert on `backup_records` begin insert into `backup_records_search` (rowid, task_name, file_name, storage_path) values (new.id, new.task_name, new.file_name, new.storage_path); end',
        "create trigger `backup_records_search_delete` after delete on `backup_records` begin insert into `backup_records_search` (`backup_records_search`, rowid, task_name, file_name, storage_path) values ('delete', old.id, old.task_name, old.file_name, old.storage_path); end",
        "create trigger `backup_records_search_update` after update of task_name, file_name, storage_path on `backup_records` begin insert into `backup_records_search` (`backup_records_search`, rowid, task_name, file_name, storage_path) values ('delete', old.id, old.task_name, old.file_name, old.storage_path); insert into `backup_records_search` (rowid, task_name, file_name, storage_path) values (new.id, new.task_name, new.file_name, new.storage_path); end",
        "insert into `backup_records_search` (`backup_records_search`) values ('rebuild')",
      ],
      postgresql: [
        'create index "backup_records_task_latest_index" on "backup_records" ("task_id", "status", "id")',
        'create index "backup_records_task_id_index" on "backup_records" ("task_id", "id")',
        'create index "backup_records_window_index" on "backup_records" ("started_at", "status", "task_id", "node_id")',
        'create index "backup_record_copies_usage_index" on "backup_record_copies" ("status", "storage_target_id", "file_size")',
        'create index "verify_records_task_mode_index" on "verify_records" ("task_id", "mode", "id")',
        'create extension if not exists pg_trgm',
        'create index "backup_records_search_task_name" on "backup_records" using gin ("task_name" gin_trgm_ops)',
        'create index "backup_records_search_file_name" on "backup_records" using gin ("file_name" gin_trgm_ops)',
        'create index "backup_records_search_storage_path" on "backup_records" using gin ("storage_path" gin_trgm_ops)',
      ],
    });
  }
}
