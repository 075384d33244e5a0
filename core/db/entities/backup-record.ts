import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type BackupKind = 'full' | 'differential' | 'repository';
export type RecordStatus = 'queued' | 'running' | 'success' | 'partial' | 'failed' | 'cancelled';
export const TERMINAL_STATUSES: readonly RecordStatus[] = ['success', 'partial', 'failed', 'cancelled'];
/** Statuses whose record holds an artifact on at least one target. */
export const ARTIFACT_STATUSES: readonly RecordStatus[] = ['success', 'partial'];

/**
 * One run of a task. The task's name, type and settings that shape the artifact are copied in,
 * so a record stays readable (and restorable) after its task is edited or deleted.
 */
export const BackupRecordEntity = defineEntity({
  name: 'BackupRecord',
  tableName: 'backup_records',
  indexes: [
    { properties: ['taskId', 'status'] },
    { properties: ['status'] },
    { properties: ['startedAt'] },
    // The read models (dashboard, reports): a task's newest record and newest success in one
    // index probe each, and windows of the history counted from the index alone.
    { name: 'backup_records_task_latest_index', properties: ['taskId', 'status', 'id'] },
    { name: 'backup_records_task_id_index', properties: ['taskId', 'id'] },
    { name: 'backup_records_window_index', properties: ['startedAt', 'status', 'taskId', 'nodeId'] },
    { name: 'backup_records_base_index', properties: ['baseRecordId'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    taskId: p.integer(),
    taskName: p.string().length(100),
    type: p.string().length(64),
    nodeId: p.integer().default(0),
    /** The master running this record (its boot number; 0 = none: an agent's, or older than migration 020). */
    masterId: p.integer().default(0),
    status: p.string().length(16).$type<RecordStatus>().default('queued'),
    /** manual | scheduled | catch_up | dependency */
    trigger: p.string().length(16).default('manual'),
    /** Username, or `system` for the scheduler. */
    triggeredBy: p.string().length(100).default('system'),
    fileName: p.string().length(255).default(''),
    /** Stored bytes (after compression and encryption). */
    fileSize: p.bigint('number').default(0),
    /** Bytes the source produced (before compression). */
    rawSize: p.bigint('number').default(0),
    /** SHA-256 (hex) of the stored bytes; '' until the artifact is complete. */
    checksum: p.string().length(64).default(''),
    /** The object key, the same on every target. */
    storagePath: p.string().length(500).default(''),
    compression: p.string().length(8).default('zstd'),
    encrypted: p.boolean().default(false),
    /** True when the artifact's file list is in `backup_record_entries`. */
    hasManifest: p.boolean().default(false),
    /**
     * JSON facts about the source taken at backup time, for deep verification: database tasks
     * `{tables: {name: rowCount}}`, file tasks `{files, directories, bytes}`. '' when unknown.
     */
    sourceStats: p.text().default(''),
    errorMessage: p.text().default(''),
    /** Why the run failed, as a stable code when it is known ('' otherwise): docs/repositories.md#why-a-run-failed. */
    errorCode: p.string().length(64).default(''),
    /** `full`, or `differential`: only what changed since its base full (`baseRecordId`), which a restore applies first. */
    backupKind: p.string().length(16).$type<BackupKind>().default('full'),
    baseRecordId: p.integer().default(0),
    locked: p.boolean().default(false),
    /** Set once deletion (retention or manual) began; the row goes when every copy is gone. */
    deleteRequestedAt: p.datetime().nullable(),
    queuedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    durationMs: p.integer().default(0),
  },
});
export type BackupRecord = InferEntity<typeof BackupRecordEntity>;

export type CopyStatus = 'pending' | 'success' | 'failed' | 'deleted';
export type TransferMode = 'direct' | 'master_relay';

/** One target's copy of a record's artifact: the per-target result. */
export const BackupRecordCopyEntity = defineEntity({
  name: 'BackupRecordCopy',
  tableName: 'backup_record_copies',
  indexes: [
    { properties: ['recordId'] },
    { properties: ['storageTargetId', 'status'] },
    // Bytes held per target, from the index alone.
    { name: 'backup_record_copies_usage_index', properties: ['status', 'storageTargetId', 'fileSize'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    recordId: p.integer(),
    storageTargetId: p.integer(),
    storageTargetName: p.string().length(100),
    status: p.string().length(16).$type<CopyStatus>().default('pending'),
    /** `primary` (written by the run) or `replica` (copied later by replication). */
    origin: p.string().length(16).default('primary'),
    storagePath: p.string().length(500).default(''),
    fileSize: p.bigint('number').default(0),
    attempts: p.integer().default(0),
    error: p.text().default(''),
    /** `error` as a stable code when it is known ('' otherwise), as the record's `errorCode`. */
    errorCode: p.string().length(64).default(''),
    /**
     * Set when a read found the stored bytes differ from the record (length or SHA-256); `error`
     * then says how. Readers try such a copy last; a later read that checks out clears it.
     */
    corruptAt: p.datetime().nullable(),
    /** A repository record's copy: the restic snapshot in that target's repository (`storagePath` is the repository's folder). */
    snapshotId: p.string().length(64).default(''),
    /** `direct` (written by the master, or by an agent itself) or `master_relay` (an agent streamed it through the master). */
    transferMode: p.string().length(16).$type<TransferMode>().default('direct'),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type BackupRecordCopy = InferEntity<typeof BackupRecordCopyEntity>;

/**
 * A run's log, one row per line, so a stream can replay it after a restart. Backup, restore and
 * verification records have separate id spaces, told apart by `recordKind`.
 */
export const BackupRecordLogEntity = defineEntity({
  name: 'BackupRecordLog',
  tableName: 'record_logs',
  indexes: [{ properties: ['recordKind', 'recordId', 'seq'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    /** backup | restore | verify */
    recordKind: p.string().length(16).default('backup'),
    recordId: p.integer(),
    seq: p.integer(),
    level: p.string().length(8),
    message: p.text(),
    createdAt: p.datetime(),
  },
});
export type BackupRecordLog = InferEntity<typeof BackupRecordLogEntity>;

/** One file-system entry of a file artifact (the manifest), for content browsing. */
export const BackupRecordEntryEntity = defineEntity({
  name: 'BackupRecordEntry',
  tableName: 'backup_record_entries',
  indexes: [{ properties: ['recordId', 'path'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    recordId: p.integer(),
    path: p.text(),
    size: p.bigint('number').default(0),
    mtime: p.datetime(),
    mode: p.integer().default(0),
    /** file | directory | symlink */
    entryType: p.string().length(16),
  },
});
export type BackupRecordEntry = InferEntity<typeof BackupRecordEntryEntity>;

/**
 * The GNU tar snapshot file of a differential-mode full (core/backup/tar-snapshots.ts), sealed:
 * what its differentials are made against when the running host lost its own copy.
 */
export const BackupRecordSnapshotEntity = defineEntity({
  name: 'BackupRecordSnapshot',
  tableName: 'backup_record_snapshots',
  properties: {
    recordId: p.integer().primary().autoincrement(false),
    /** SHA-256 (hex) of the snapshot file, to trust a local copy. */
    checksum: p.string().length(64).default(''),
    size: p.bigint('number').default(0),
    /** The file, deflated, base64, sealed (SecretBox). */
    sealed: p.text(),
  },
});
export type BackupRecordSnapshot = InferEntity<typeof BackupRecordSnapshotEntity>;
