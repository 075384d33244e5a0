import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { RecordStatus } from './backup-record.ts';

/** One restore of a backup record's artifact. */
export const RestoreRecordEntity = defineEntity({
  name: 'RestoreRecord',
  tableName: 'restore_records',
  indexes: [{ properties: ['backupRecordId'] }, { properties: ['status'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    backupRecordId: p.integer(),
    taskId: p.integer(),
    taskName: p.string().length(100),
    type: p.string().length(64),
    nodeId: p.integer().default(0),
    /** The master running this record (its boot number; 0 = none: an agent's, or older than migration 020). */
    masterId: p.integer().default(0),
    status: p.string().length(16).$type<RecordStatus>().default('queued'),
    /** File restores: the directory restored into ('' = the original locations). */
    targetPath: p.string().length(4096).default(''),
    /** Database restores: the database restored into ('' = the original). */
    targetDatabase: p.string().length(255).default(''),
    /** JSON array of archive paths (file restores); '[]' = everything. */
    selectedPaths: p.text().default('[]'),
    /** The copy the artifact was read from. */
    sourceTargetId: p.integer().default(0),
    sourceTargetName: p.string().length(100).default(''),
    bytes: p.bigint('number').default(0),
    /** Entries written (file restores). */
    entries: p.integer().default(0),
    triggeredBy: p.string().length(100).default('system'),
    errorMessage: p.text().default(''),
    queuedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    durationMs: p.integer().default(0),
  },
});
export type RestoreRecord = InferEntity<typeof RestoreRecordEntity>;

/** One verification of a backup record: `quick` reads and checks, `deep` restores into a sandbox. */
export const VerifyRecordEntity = defineEntity({
  name: 'VerifyRecord',
  tableName: 'verify_records',
  indexes: [
    { properties: ['backupRecordId'] },
    { properties: ['taskId', 'status'] },
    { name: 'verify_records_task_mode_index', properties: ['taskId', 'mode', 'id'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    backupRecordId: p.integer(),
    taskId: p.integer(),
    taskName: p.string().length(100),
    type: p.string().length(64),
    nodeId: p.integer().default(0),
    /** The master running this record (its boot number; 0 = none: an agent's, or older than migration 020). */
    masterId: p.integer().default(0),
    mode: p.string().length(8).default('quick'),
    status: p.string().length(16).$type<RecordStatus>().default('queued'),
    summary: p.string().length(500).default(''),
    /** Deep verification: how long the sandbox restore took (the measured RTO). */
    restoreMs: p.integer().nullable(),
    sourceTargetId: p.integer().default(0),
    sourceTargetName: p.string().length(100).default(''),
    triggeredBy: p.string().length(100).default('system'),
    errorMessage: p.text().default(''),
    queuedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    durationMs: p.integer().default(0),
  },
});
export type VerifyRecord = InferEntity<typeof VerifyRecordEntity>;

/** One copy of an artifact from one target to another. */
export const ReplicationRecordEntity = defineEntity({
  name: 'ReplicationRecord',
  tableName: 'replication_records',
  indexes: [{ properties: ['backupRecordId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    backupRecordId: p.integer(),
    taskId: p.integer(),
    taskName: p.string().length(100).default(''),
    sourceTargetId: p.integer().default(0),
    sourceTargetName: p.string().length(100).default(''),
    destTargetId: p.integer(),
    destTargetName: p.string().length(100),
    /** The master running this record (its boot number; 0 = none: an agent's, or older than migration 020). */
    masterId: p.integer().default(0),
    status: p.string().length(16).$type<RecordStatus>().default('queued'),
    storagePath: p.string().length(500).default(''),
    fileSize: p.bigint('number').default(0),
    checksum: p.string().length(64).default(''),
    triggeredBy: p.string().length(100).default('system'),
    errorMessage: p.text().default(''),
    queuedAt: p.datetime().onCreate(() => new Date()),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    durationMs: p.integer().default(0),
  },
});
export type ReplicationRecord = InferEntity<typeof ReplicationRecordEntity>;
