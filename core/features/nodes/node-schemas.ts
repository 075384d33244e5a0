import { Type, type Static } from 'typebox';
import { NullableTimestamp, Timestamp, pageQuery } from '../../http/schemas.ts';

/** Most nodes one batch request may create. */
export const MAX_NODE_BATCH = 50;

/** '' (no limit) or a rate as rclone writes it: digits, optional fraction, optional K/M/G (bytes per second). */
export const BANDWIDTH_PATTERN = '^(\\d{1,9}(\\.\\d{1,3})?[KMG]?)?$';

/** Labels: a CSV string or an array, normalised like task tags. */
const Labels = Type.Union([
  Type.String({ maxLength: 500 }),
  Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 }),
]);

/** Names are trimmed by the service, which then requires 1-128 characters. */
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const NodeSettings = {
  labels: Type.Optional(Labels),
  /** Concurrent runs the node's agent takes; 0 = unlimited. */
  maxConcurrent: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  bandwidthLimit: Type.Optional(Type.String({ maxLength: 32, pattern: BANDWIDTH_PATTERN })),
};

export const NodeInput = Type.Object({ name: Name, ...NodeSettings });
export type NodeInput = Static<typeof NodeInput>;

export const NodeUpdate = Type.Object({ name: Type.Optional(Name), ...NodeSettings });
export type NodeUpdate = Static<typeof NodeUpdate>;

/**
 * The count rule (1-50) and the names are checked by the handler so it can answer with their own
 * codes (NODE_BATCH_EMPTY, NODE_BATCH_TOO_MANY, NODE_NAME_TOO_LONG, NODE_DUPLICATE_NAME), not INVALID_INPUT.
 */
export const NodeBatchInput = Type.Object({
  names: Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 10_000 }),
});

export const NodeListQuery = Type.Object(pageQuery(100, 1000));

export const NodeView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  hostname: Type.String(),
  ipAddress: Type.String(),
  /** `online` when seen within `nodeOfflineSeconds`, else `offline` (also when never seen: `lastSeen` is then null). */
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  health: Type.Union([Type.Literal('offline'), Type.Literal('degraded'), Type.Literal('healthy')]),
  isLocal: Type.Boolean(),
  os: Type.String(),
  arch: Type.String(),
  agentVersion: Type.String(),
  lastSeen: NullableTimestamp,
  maxConcurrent: Type.Integer(),
  bandwidthLimit: Type.String(),
  labels: Type.String(),
  lastError: Type.String(),
  runningTasks: Type.Integer(),
  queue: Type.Object({
    pending: Type.Integer(),
    dispatched: Type.Integer(),
    depth: Type.Integer(),
    timeouts: Type.Integer(),
    oldestActiveAt: Type.Optional(Timestamp),
    oldestActiveAgeSeconds: Type.Integer(),
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type NodeView = Static<typeof NodeView>;

export const NodeWithToken = Type.Object({ node: NodeView, token: Type.String() });

/** `newToken` and `token` are the same new token under two names (docs/api-decisions.md). */
export const RotatedToken = Type.Object({
  newToken: Type.String(),
  node: NodeView,
  token: Type.String(),
  previousTokenValidUntil: NullableTimestamp,
});

/** `[{id, name}]`, with the view and token of each created node. */
export const NodeBatchResult = Type.Array(
  Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    node: NodeView,
    token: Type.String(),
  }),
);
