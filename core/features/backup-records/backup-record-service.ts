import type { EntityManager, FilterQuery } from '@mikro-orm/core';
import type { Static } from 'typebox';
import { BackupRecordEntity, BackupRecordCopyEntity, BackupRecordEntryEntity, type BackupRecord, type BackupRecordCopy, type BackupRecordEntry } from '../../db/entities/backup-record.ts';
import { AppError } from '../../http/app-error.ts';
import type { RecordListQuery, ContentsQuery } from './backup-record-schemas.ts';
import { statusWhere } from './reported-status.ts';

type ListQuery = Static<typeof RecordListQuery>;

/** Reading and flagging records; running and deleting them belong to BackupRuns and RecordDeleter. */
export class BackupRecordService {
  readonly #em: EntityManager;

  constructor({ em }: { em: EntityManager }) {
    this.#em = em;
  }

  async list(q: ListQuery): Promise<[BackupRecord[], number]> {
    const where: FilterQuery<BackupRecord> = {};
    if (q.taskId !== undefined) where.taskId = q.taskId;
    const status = statusWhere(q.status);
    if (status !== undefined) where.status = status;
    if (q.nodeId !== undefined) where.nodeId = q.nodeId;
    const from = q.dateFrom ? new Date(q.dateFrom) : undefined;
    const to = q.dateTo ? new Date(q.dateTo) : undefined;
    if (from && to && from > to) throw new AppError('BACKUP_RECORD_FILTER_INVALID', { message: 'dateFrom must not be after dateTo.' });
    if (from || to) where.queuedAt = { ...(from ? { $gte: from } : {}), ...(to ? { $lt: to } : {}) };
    // Read-only rows for a view: not tracked by the identity map (no snapshots to take).
    return this.#em.findAndCount(BackupRecordEntity, where, { orderBy: { id: 'desc' }, limit: q.limit, offset: q.offset, disableIdentityMap: true });
  }

  async get(id: number): Promise<BackupRecord> {
    const record = await this.#em.findOne(BackupRecordEntity, { id });
    if (!record) throw new AppError('BACKUP_RECORD_NOT_FOUND');
    return record;
  }

  async copies(recordIds: number[]): Promise<Map<number, BackupRecordCopy[]>> {
    const rows = recordIds.length === 0 ? [] : await this.#em.find(BackupRecordCopyEntity, { recordId: { $in: recordIds } }, { orderBy: { id: 'asc' }, disableIdentityMap: true });
    const map = new Map<number, BackupRecordCopy[]>();
    for (const row of rows) map.set(row.recordId, [...(map.get(row.recordId) ?? []), row]);
    return map;
  }

  async setLocked(id: number, locked: boolean): Promise<BackupRecord> {
    const record = await this.get(id);
    if (locked && record.deleteRequestedAt) throw new AppError('BACKUP_RECORD_LOCK_INVALID', { message: 'The record is being deleted; it can no longer be locked.' });
    record.locked = locked;
    await this.#em.flush();
    return record;
  }

  async contents(record: BackupRecord, q: Static<typeof ContentsQuery>): Promise<{ total: number; entries: Array<{ path: string; size: number; isDir: boolean; type: string; mode: number; mtime: string }> }> {
    if (!record.hasManifest) throw new AppError('BACKUP_CONTENTS_UNAVAILABLE', { message: record.type === 'file' ? 'This record has no stored file list.' : 'Database artifacts have no browsable contents.' });
    const where: FilterQuery<BackupRecordEntry> = { recordId: record.id };
    const prefix = q.prefix?.replace(/^\/+|\/+$/g, '');
    if (prefix) where.path = { $like: `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%` };
    const [rows, total] = await this.#em.findAndCount(BackupRecordEntryEntity, where, { orderBy: { path: 'asc' }, limit: q.limit, offset: q.offset });
    return {
      total,
      entries: rows.map((r) => ({ path: r.path, size: r.size, isDir: r.entryType === 'directory', type: r.entryType, mode: r.mode, mtime: r.mtime.toISOString() })),
    };
  }
}
