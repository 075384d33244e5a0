import { Type } from 'typebox';
import { pageQuery, Timestamp, NullableTimestamp } from '../../http/schemas.ts';

/** Backplane's states; `status` filters also take them (`running` includes queued runs, see reported-status.ts). */
export const RECORD_STATUSES = ['queued', 'running', 'success', 'partial', 'failed', 'cancelled'] as const;

export const RecordListQuery = Type.Object(
  {
    taskId: Type.Optional(Type.Integer({ minimum: 1 })),
    status: Type.Optional(Type.Union(RECORD_STATUSES.map((s) => Type.Literal(s)))),
    nodeId: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Records started (or queued) at or after this instant. */
    dateFrom: Type.Optional(Type.String({ format: 'date-time' })),
    /** ... and before this instant. */
    dateTo: Type.Optional(Type.String({ format: 'date-time' })),
    ...pageQuery(50, 500),
  },
  { additionalProperties: false },
);

export const CopyResult = Type.Object({
  storageTargetId: Type.Integer(),
  storageTargetName: Type.String(),
  /** pending | success | failed | deleted, or corrupt: stored, but a read found its bytes differ from the record. */
  status: Type.String(),
  /** When a read found the copy corrupt (`error` says how); null for an intact or unchecked copy. */
  corruptAt: NullableTimestamp,
  storagePath: Type.String(),
  fileSize: Type.Number(),
  /** direct | master_relay: how the copy reached its target. */
  transferMode: Type.String(),
  attempts: Type.Integer(),
  error: Type.String(),
  /** `error` as a stable code when known (docs/repositories.md#why-a-run-failed); null otherwise. */
  errorCode: Type.Union([Type.String(), Type.Null()]),
  /** A repository record's restic snapshot in this target's repository (full id); null for an artifact. */
  snapshotId: Type.Union([Type.String(), Type.Null()]),
});

export const RecordSummary = Type.Object({
  id: Type.Integer(),
  taskId: Type.Integer(),
  taskName: Type.String(),
  type: Type.String(),
  storageTargetId: Type.Integer(),
  storageTargetName: Type.String(),
  nodeId: Type.Integer(),
  /** running | success | failed, plus partial and cancelled: a queued run shows as running (reported-status.ts). */
  status: Type.String(),
  /** Backplane's precise state: queued | running | success | partial | failed | cancelled. */
  state: Type.String(),
  trigger: Type.String(),
  triggeredBy: Type.String(),
  fileName: Type.String(),
  fileSize: Type.Number(),
  rawSize: Type.Number(),
  checksum: Type.String(),
  storagePath: Type.String(),
  /** How the primary copy travelled: direct | master_relay. */
  storageTransferMode: Type.String(),
  compression: Type.String(),
  encrypted: Type.Boolean(),
  durationSeconds: Type.Number(),
  errorMessage: Type.String(),
  /** Why the run failed as a stable code, when known (docs/repositories.md#why-a-run-failed); null otherwise. */
  errorCode: Type.Union([Type.String(), Type.Null()]),
  queuedAt: Timestamp,
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  locked: Type.Boolean(),
  deletePending: Type.Boolean(),
  /**
   * `full`; `differential`: what changed since `baseRecordId`, which a restore applies first
   * (docs/differential.md); `repository`: a restic snapshot in each target's repository (docs/repositories.md).
   */
  backupKind: Type.Union([Type.Literal('full'), Type.Literal('differential'), Type.Literal('repository')]),
  /** The full a differential builds on; 0 for a full. */
  baseRecordId: Type.Integer(),
  hasContents: Type.Boolean(),
  /** Backplane's: while running, the last progress the run reported (bytes read and stored so far, speed, seconds); null otherwise. */
  progress: Type.Union([
    Type.Object({
      bytesRead: Type.Number(),
      bytesStored: Type.Number(),
      speedBps: Type.Number(),
      elapsedSeconds: Type.Number(),
    }),
    Type.Null(),
  ]),
});

/** A stored log line as a log event (the log stream sends the same objects). */
export const LogEventView = Type.Object({
  recordId: Type.Integer(),
  sequence: Type.Integer(),
  level: Type.String(),
  message: Type.String(),
  timestamp: Timestamp,
  completed: Type.Boolean(),
  status: Type.String(),
});

export const RecordDetail = Type.Object({
  ...RecordSummary.properties,
  logContent: Type.String(),
  logEvents: Type.Array(LogEventView),
  storageUploadResults: Type.Array(CopyResult),
});

export const LockBody = Type.Object({ locked: Type.Boolean() }, { additionalProperties: false });

export const BatchDeleteBody = Type.Object(
  { ids: Type.Array(Type.Integer(), { maxItems: 1000 }) },
  { additionalProperties: false },
);

export const BatchDeleteResult = Type.Object({
  results: Type.Array(
    Type.Object({
      id: Type.Integer(),
      success: Type.Boolean(),
      error: Type.Union([Type.String(), Type.Null()]),
      code: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
  succeeded: Type.Integer(),
  failed: Type.Integer(),
  /** How many were deleted (the same number as `succeeded`). */
  deleted: Type.Integer(),
});

export const ContentsQuery = Type.Object(
  {
    /** Only entries under this folder (archive path, no leading slash). */
    prefix: Type.Optional(Type.String({ maxLength: 4096 })),
    ...pageQuery(10_000, 10_000),
  },
  { additionalProperties: false },
);

export const ContentsResult = Type.Object({
  recordId: Type.Integer(),
  total: Type.Integer(),
  truncated: Type.Boolean(),
  /** A differential's base full (BackupX's field); the entries are the tree as it was at this record. */
  basedOnFull: Type.Optional(Type.Integer()),
  entries: Type.Array(
    Type.Object({
      path: Type.String(),
      size: Type.Number(),
      isDir: Type.Boolean(),
      type: Type.String(),
      mode: Type.Integer(),
      mtime: Timestamp,
    }),
  ),
});
