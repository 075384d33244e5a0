import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import type { Static } from 'typebox';
import {
  BackupRecordEntity,
  BackupRecordCopyEntity,
  BackupRecordEntryEntity,
  type BackupRecord,
  type BackupRecordCopy,
  type BackupRecordEntry,
} from '../../db/entities/backup-record.ts';
import { AppError } from '../../http/app-error.ts';
import type { RecordListQuery, ContentsQuery } from './backup-record-schemas.ts';
import { statusWhere } from './reported-status.ts';
import { AggregateSql, bool, timeOf } from '../../db/aggregate-sql.ts';
import type { RecordRow, CopyRow } from './backup-record-view.ts';
import type { BackupKind, RecordStatus, CopyStatus, TransferMode } from '../../db/entities/backup-record.ts';

type ListQuery = Static<typeof RecordListQuery>;

const RECORD_COLUMNS =
  'id, task_id, task_name, type, node_id, status, trigger, triggered_by, file_name, file_size, raw_size, checksum, ' +
  'storage_path, compression, encrypted, has_manifest, error_message, error_code, locked, delete_requested_at, ' +
  'queued_at, started_at, completed_at, duration_ms, backup_kind, base_record_id';

function recordRow(r: Record<string, unknown>): RecordRow {
  return {
    id: Number(r.id),
    taskId: Number(r.task_id),
    taskName: String(r.task_name),
    type: String(r.type),
    nodeId: Number(r.node_id),
    status: r.status as RecordStatus,
    trigger: String(r.trigger),
    triggeredBy: String(r.triggered_by),
    fileName: String(r.file_name),
    fileSize: Number(r.file_size),
    rawSize: Number(r.raw_size),
    checksum: String(r.checksum),
    storagePath: String(r.storage_path),
    compression: String(r.compression),
    encrypted: bool(r.encrypted),
    hasManifest: bool(r.has_manifest),
    errorMessage: String(r.error_message),
    errorCode: String(r.error_code),
    locked: bool(r.locked),
    deleteRequestedAt: timeOf(r.delete_requested_at),
    queuedAt: timeOf(r.queued_at)!,
    startedAt: timeOf(r.started_at),
    completedAt: timeOf(r.completed_at),
    durationMs: Number(r.duration_ms),
    backupKind: r.backup_kind as BackupKind,
    baseRecordId: Number(r.base_record_id),
  };
}

/** Reading and flagging records; running and deleting them belong to BackupRuns and RecordDeleter. */
export class BackupRecordService {
  readonly #em: EntityManager;

  constructor({ em }: { em: EntityManager }) {
    this.#em = em;
  }

  /**
   * One page of the record list, newest first, with its total. Hand-written statements (a page
   * is 50 rows and their copies on every refresh of the console's list; the ORM's hydration was
   * most of the route's time, see docs/benchmarks.md), mapped to the fields the summary shows.
   */
  async list(q: ListQuery): Promise<[RecordRow[], number]> {
    const sql = new AggregateSql(this.#em);
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (condition: string, ...values: unknown[]) => {
      where.push(condition);
      params.push(...values);
    };
    if (q.taskId !== undefined) add('task_id = ?', q.taskId);
    const status = statusWhere(q.status);
    if (typeof status === 'string') add('status = ?', status);
    else if (status) add(`status in (${status.$in.map(() => '?').join(', ')})`, ...status.$in);
    if (q.nodeId !== undefined) add('node_id = ?', q.nodeId);
    const from = q.dateFrom ? new Date(q.dateFrom) : undefined;
    const to = q.dateTo ? new Date(q.dateTo) : undefined;
    if (from && to && from > to)
      throw new AppError('BACKUP_RECORD_FILTER_INVALID', { message: 'dateFrom must not be after dateTo.' });
    if (from) add('queued_at >= ?', sql.time(from));
    if (to) add('queued_at < ?', sql.time(to));
    const clause = where.length ? `where ${where.join(' and ')}` : '';
    const [rows, [count]] = await Promise.all([
      sql.rows(`select ${RECORD_COLUMNS} from backup_records ${clause} order by id desc limit ? offset ?`, [
        ...params,
        q.limit,
        q.offset,
      ]),
      sql.rows(`select count(*) as n from backup_records ${clause}`, params),
    ]);
    return [rows.map(recordRow), Number(count?.n ?? 0)];
  }

  /** The copies of a page of records (see `list`), mapped like them. */
  async listCopies(recordIds: number[]): Promise<Map<number, CopyRow[]>> {
    const map = new Map<number, CopyRow[]>();
    if (recordIds.length === 0) return map;
    const rows = await new AggregateSql(this.#em).rows(
      `select record_id, storage_target_id, storage_target_name, status, corrupt_at, transfer_mode from backup_record_copies
      where record_id in (${recordIds.map(() => '?').join(', ')}) order by id`,
      recordIds,
    );
    for (const r of rows) {
      const row: CopyRow = {
        storageTargetId: Number(r.storage_target_id),
        storageTargetName: String(r.storage_target_name),
        status: r.status as CopyStatus,
        corruptAt: timeOf(r.corrupt_at),
        transferMode: r.transfer_mode as TransferMode,
      };
      map.set(Number(r.record_id), [...(map.get(Number(r.record_id)) ?? []), row]);
    }
    return map;
  }

  async get(id: number): Promise<BackupRecord> {
    const record = await this.#em.findOne(BackupRecordEntity, { id });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    return record;
  }

  async copies(recordIds: number[]): Promise<Map<number, BackupRecordCopy[]>> {
    const rows =
      recordIds.length === 0
        ? []
        : await this.#em.find(
            BackupRecordCopyEntity,
            { recordId: { $in: recordIds } },
            { orderBy: { id: 'asc' }, disableIdentityMap: true },
          );
    const map = new Map<number, BackupRecordCopy[]>();
    for (const row of rows) map.set(row.recordId, [...(map.get(row.recordId) ?? []), row]);
    return map;
  }

  async setLocked(id: number, locked: boolean): Promise<BackupRecord> {
    const record = await this.get(id);
    if (locked && record.deleteRequestedAt)
      throw new AppError('BACKUP_RECORD_LOCK_INVALID', {
        message: 'The record is being deleted; it can no longer be locked.',
      });
    record.locked = locked;
    await this.#em.flush();
    return record;
  }

  async contents(
    record: BackupRecord,
    q: Static<typeof ContentsQuery>,
  ): Promise<{
    total: number;
    entries: Array<{ path: string; size: number; isDir: boolean; type: string; mode: number; mtime: string }>;
  }> {
    if (!record.hasManifest)
      throw new AppError('BACKUP_CONTENTS_UNAVAILABLE', {
        message:
          record.type === 'file'
            ? 'This record has no stored file list.'
            : 'Database artifacts have no browsable contents.',
      });
    const where: FilterQuery<BackupRecordEntry> = { recordId: record.id };
    const prefix = q.prefix?.replace(/^\/+|\/+$/g, '');
    if (prefix) where.path = { $like: `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%` };
    const [rows, total] = await this.#em.findAndCount(BackupRecordEntryEntity, where, {
      orderBy: { path: 'asc' },
      limit: q.limit,
      offset: q.offset,
    });
    return {
      total,
      entries: rows.map((r) => ({
        path: r.path,
        size: r.size,
        isDir: r.entryType === 'directory',
        type: r.entryType,
        mode: r.mode,
        mtime: r.mtime.toISOString(),
      })),
    };
  }
}
