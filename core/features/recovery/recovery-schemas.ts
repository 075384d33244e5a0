import { Type } from 'typebox';
import { pageQuery, Timestamp, NullableTimestamp } from '../../http/schemas.ts';
import { RECORD_STATUSES, LogEventView } from '../backup-records/backup-record-schemas.ts';

const Status = Type.Union(RECORD_STATUSES.map((s) => Type.Literal(s)));

export const RecoveryListQuery = Type.Object(
  {
    backupRecordId: Type.Optional(Type.Integer({ minimum: 1 })),
    taskId: Type.Optional(Type.Integer({ minimum: 1 })),
    status: Type.Optional(Status),
    /** Records queued at or after this instant (RFC 3339). */
    dateFrom: Type.Optional(Type.String({ format: 'date-time' })),
    /** ... and before this instant. */
    dateTo: Type.Optional(Type.String({ format: 'date-time' })),
    ...pageQuery(50, 500),
  },
  { additionalProperties: false },
);

export const ReplicationListQuery = Type.Object(
  {
    ...RecoveryListQuery.properties,
    destTargetId: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

const Common = {
  id: Type.Integer(),
  backupRecordId: Type.Integer(),
  taskId: Type.Integer(),
  taskName: Type.String(),
  /** running | success | failed, plus partial and cancelled: a queued run shows as running (reported-status.ts). */
  status: Type.String(),
  /** Backplane's precise state: queued | running | success | partial | failed | cancelled. */
  state: Type.String(),
  errorMessage: Type.String(),
  triggeredBy: Type.String(),
  durationSeconds: Type.Number(),
  queuedAt: Timestamp,
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
};

export const RestoreBody = Type.Object(
  {
    targetPath: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    targetDatabase: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    selectedPaths: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { maxItems: 1000 })),
    databases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 1000 })),
  },
  { additionalProperties: false },
);

export const RestoreSummary = Type.Object({
  ...Common,
  type: Type.String(),
  nodeId: Type.Integer(),
  targetPath: Type.String(),
  targetDatabase: Type.String(),
  selectedPaths: Type.Array(Type.String()),
  databases: Type.Array(Type.String()),
  sourceTargetId: Type.Integer(),
  sourceTargetName: Type.String(),
  bytes: Type.Number(),
  entries: Type.Integer(),
});
export const RestoreDetail = Type.Object({
  ...RestoreSummary.properties,
  logContent: Type.String(),
  logEvents: Type.Array(LogEventView),
});

export const VerifyBody = Type.Union([
  Type.Object(
    { mode: Type.Optional(Type.Union([Type.Literal('quick'), Type.Literal('deep')])) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);

export const VerifySummary = Type.Object({
  ...Common,
  type: Type.String(),
  nodeId: Type.Integer(),
  mode: Type.String(),
  summary: Type.String(),
  restoreSeconds: Type.Union([Type.Number(), Type.Null()]),
  sourceTargetId: Type.Integer(),
  sourceTargetName: Type.String(),
});
export const VerifyDetail = Type.Object({
  ...VerifySummary.properties,
  logContent: Type.String(),
  logEvents: Type.Array(LogEventView),
});

export const ReplicateBody = Type.Object(
  { destTargetId: Type.Integer({ minimum: 1 }) },
  { additionalProperties: false },
);

export const ReplicationSummary = Type.Object({
  ...Common,
  sourceTargetId: Type.Integer(),
  sourceTargetName: Type.String(),
  destTargetId: Type.Integer(),
  destTargetName: Type.String(),
  storagePath: Type.String(),
  fileSize: Type.Number(),
  checksum: Type.String(),
});
