import { Type, type Static } from 'typebox';

/**
 * The agent wire: every body the master and an agent exchange, as TypeBox schemas and their
 * `Static` types. The master's routes validate and serialise with the schemas; the agent
 * (agent/*) imports the types. Only `typebox` is imported here, so the agent never pulls in
 * Fastify or the master's HTTP slices by using it.
 */

const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
const Level = Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]);
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const RunStatus = Type.Union([Type.Literal('running'), Type.Literal('success'), Type.Literal('failed')]);

// ---- enrollment and heartbeat -----------------------------------------------------------------

/** `POST /api/install/enroll`: a one-time enrollment code for the node token (no token header). */
export const EnrollInput = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);
export type EnrollInput = Static<typeof EnrollInput>;

export const EnrollReply = Type.Object({
  nodeId: Type.Integer(),
  nodeName: Type.String(),
  token: Type.String(),
  masterUrl: Type.String(),
});
export type EnrollReply = Static<typeof EnrollReply>;

/** `POST /api/agent/heartbeat` (an agent with nothing to report may send no body at all). */
export const HeartbeatInput = Type.Object({
  hostname: Type.Optional(Type.String({ maxLength: 255 })),
  ipAddress: Type.Optional(Type.String({ maxLength: 64 })),
  os: Type.Optional(Type.String({ maxLength: 64 })),
  arch: Type.Optional(Type.String({ maxLength: 64 })),
  agentVersion: Type.Optional(Type.String({ maxLength: 64 })),
  lastError: Type.Optional(Type.String({ maxLength: 4000 })),
  /** Runs the agent reports as active; informational (the view counts records). */
  running: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 })),
  /** Command ids the agent is executing: only these leases are renewed (others lapse on their own). */
  inFlight: Type.Optional(Type.Array(Id, { maxItems: 1000 })),
  /** A starting agent holds nothing: every command the node had claimed is settled at once. */
  starting: Type.Optional(Type.Boolean()),
});
export type HeartbeatInput = Static<typeof HeartbeatInput>;

/** The node's settings as the agent applies them; `maxConcurrent` 0 is unlimited. */
export const HeartbeatReply = Type.Object({
  nodeId: Type.Integer(),
  name: Type.String(),
  serverTime: Type.String({ format: 'date-time' }),
  offlineAfterSeconds: Type.Integer(),
  leaseSeconds: Type.Integer(),
  maxConcurrent: Type.Integer(),
  bandwidthLimit: Type.String(),
  labels: Type.Array(Type.String()),
});
export type HeartbeatReply = Static<typeof HeartbeatReply>;

// ---- commands ---------------------------------------------------------------------------------

/** A claimed command as the poll reply carries it. */
export const ClaimedCommand = Type.Object({
  id: Type.Integer(),
  type: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  attempt: Type.Integer(),
  leaseSeconds: Type.Integer(),
});
export type ClaimedCommand = Static<typeof ClaimedCommand>;

/** `POST /api/agent/commands/poll`: the claimed command, or null when there is none. */
export const PollReply = Type.Object({ command: Type.Union([ClaimedCommand, Type.Null()]) });
export type PollReply = Static<typeof PollReply>;

/** What the agent posts to `/api/agent/commands/:id/result`. */
export const CommandResultInput = Type.Object({
  success: Type.Boolean(),
  error: Type.Optional(Type.String({ maxLength: 4000 })),
  result: Type.Optional(Type.Unknown()),
});
export type CommandOutcome = Omit<Static<typeof CommandResultInput>, 'result'> & { result?: Record<string, unknown> };

/** The payload of each command type (the master enqueues them; the agent checks them again: they cross a process). */
export const RunTaskPayload = Type.Object({ taskId: Id, recordId: Id });
export type RunTaskPayload = Static<typeof RunTaskPayload>;
export const RestoreRecordPayload = Type.Object({ restoreId: Id });
export type RestoreRecordPayload = Static<typeof RestoreRecordPayload>;
export const ListDirPayload = Type.Object({ path: Type.Optional(Type.String()) });
export type ListDirPayload = Static<typeof ListDirPayload>;
/** The password travels in the command's secrets, merged into the payload at claim only. */
export const DiscoverDbPayload = Type.Object({
  type: Type.String(),
  config: Type.Record(Type.String(), Type.Unknown()),
  password: Type.Optional(Type.String()),
});
export type DiscoverDbPayload = Static<typeof DiscoverDbPayload>;

// ---- discovery replies (command results) ------------------------------------------------------

export const DirEntry = Type.Object({
  name: Type.String(),
  path: Type.String(),
  isDir: Type.Boolean(),
  size: Type.Number(),
  modifiedAt: Type.Union([Type.String(), Type.Null()]),
});
export type DirEntry = Static<typeof DirEntry>;

/** `list_dir`'s result; `total` counts the folder's entries before the cut (agents before it was added leave it out). */
export const DirListing = Type.Object({
  path: Type.String(),
  entries: Type.Array(DirEntry),
  total: Type.Optional(Type.Integer()),
  truncated: Type.Optional(Type.Boolean()),
});
export type DirListing = Static<typeof DirListing>;

export const DiscoveredDatabase = Type.Object({
  name: Type.String(),
  sizeBytes: Type.Union([Type.Number(), Type.Null()]),
  system: Type.Boolean(),
});
export type DiscoveredDatabase = Static<typeof DiscoveredDatabase>;

/** `discover_db`'s result. */
export const DiscoverDbResult = Type.Object({ databases: Type.Array(DiscoveredDatabase) });
export type DiscoverDbResult = Static<typeof DiscoverDbResult>;

// ---- backups on agents --------------------------------------------------------------------------

export const TaskSpecQuery = Type.Object({ recordId: Id });

/**
 * What a run reads (core/engine/backup/task-source.ts `SourceSpec`, which the type checker holds to
 * this shape both ways), plus the unsealed database password; database fields are unused by file tasks.
 */
const Source = Type.Object({
  type: Type.String(),
  sourcePaths: Type.Array(Type.String()),
  excludePatterns: Type.Array(Type.String()),
  dbHost: Type.String(),
  dbPort: Type.Integer(),
  dbUser: Type.String(),
  /** Comma-separated database names ('' = the driver's default). */
  dbName: Type.String(),
  dbPath: Type.String(),
  dbPassword: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const SpecTarget = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  mode: Type.Union([Type.Literal('relay'), Type.Literal('direct')]),
  type: Type.String(),
  /** Direct targets only: the full configuration, secrets included, for the agent to write itself. */
  config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

/** `GET /api/agent/tasks/:id?recordId=N`. */
export const TaskSpec = Type.Object({
  recordId: Type.Integer(),
  taskId: Type.Integer(),
  name: Type.String(),
  source: Source,
  compression: Type.Union([Type.Literal('zstd'), Type.Literal('gzip'), Type.Literal('none')]),
  encrypt: Type.Boolean(),
  recipient: Type.Union([Type.String(), Type.Null()]),
  storageKey: Type.String(),
  rawExtension: Type.String(),
  targets: Type.Array(SpecTarget),
  bandwidthLimit: Type.String(),
  /**
   * A file task in differential mode (docs/differential.md); null otherwise. `baseRecordId` 0: a
   * full that keeps its tar snapshot file (the agent sends it with PUT .../tar-snapshot);
   * otherwise a differential against that full, whose snapshot file has SHA-256 `checksum` (the
   * agent's own copy, or GET .../base-snapshot). `note` says why a run is a full.
   */
  differential: Type.Union([
    Type.Null(),
    Type.Object({ baseRecordId: Type.Integer({ minimum: 0 }), checksum: Type.String(), note: Type.String() }),
  ]),
  /**
   * A file task in repository mode (docs/repositories.md#on-agents); null otherwise: one restic
   * repository per target, each reached through the master's append-only bridge at `path` (below
   * the master's URL), with its own password.
   */
  repository: Type.Union([
    Type.Null(),
    Type.Object({
      targets: Type.Array(
        Type.Object({ id: Type.Integer(), name: Type.String(), path: Type.String(), password: Type.String() }),
      ),
      /** How long restic waits for a repository another restic holds locked (the master's BACKPLANE_REPOSITORY_LOCK_WAIT). */
      lockWaitSeconds: Type.Optional(Type.Integer({ minimum: 0 })),
    }),
  ]),
});
export type TaskSpec = Static<typeof TaskSpec>;

export const LogLine = Type.Object({ level: Level, message: Type.String({ maxLength: 4000 }) });
export type LogLine = Static<typeof LogLine>;
export const LogLines = Type.Array(LogLine, { maxItems: 500 });

export const Progress = Type.Object({ bytesRead: Count, bytesStored: Count, speedBps: Count, elapsedSeconds: Count });
export type Progress = Static<typeof Progress>;

export const ManifestEntry = Type.Object({
  // Not `minLength`: an empty or unclean name fails the run (remote-backups), not just the request.
  path: Type.String({ maxLength: 4096 }),
  type: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink')]),
  size: Count,
  mode: Type.Integer({ minimum: 0, maximum: 0o7777 }),
  mtime: Type.String({ format: 'date-time' }),
  linkname: Type.Optional(Type.String({ maxLength: 4096 })),
});
export type WireManifestEntry = Static<typeof ManifestEntry>;

export const TargetOutcome = Type.Object({
  targetId: Type.Integer({ minimum: 1 }),
  status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
  size: Type.Optional(Count),
  error: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type TargetOutcome = Static<typeof TargetOutcome>;

/** A file a differential left to its full: its path now, and the path the full holds it under. */
export const CarriedEntry = Type.Object({
  path: Type.String({ maxLength: 4096 }),
  from: Type.String({ maxLength: 4096 }),
});

/** `POST /api/agent/records/:id`. */
/** A run's failure as a stable code (docs/repositories.md#why-a-run-failed). */
const ErrorCode = Type.String({ pattern: '^[A-Z][A-Z0-9_]{0,63}$' });

export const RecordUpdateInput = Type.Object({
  status: Type.Optional(RunStatus),
  logs: Type.Optional(LogLines),
  progress: Type.Optional(Progress),
  manifest: Type.Optional(Type.Array(ManifestEntry, { maxItems: 2000 })),
  /** A differential's unchanged files: the master copies their manifest rows from the full. */
  carried: Type.Optional(Type.Array(CarriedEntry, { maxItems: 2000 })),
  /** The agent made a full instead of the differential it was given (it could not get the full's snapshot file). */
  backupKind: Type.Optional(Type.Literal('full')),
  /** A repository run, with `success`: each target's snapshot (the master checks it is there) or why not. */
  repositoryResults: Type.Optional(
    Type.Array(
      Type.Object({
        targetId: Type.Integer({ minimum: 1 }),
        status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
        snapshotId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
        dataAdded: Type.Optional(Count),
        error: Type.Optional(Type.String({ maxLength: 2000 })),
        errorCode: Type.Optional(ErrorCode),
      }),
      { maxItems: 100 },
    ),
  ),
  fileSize: Type.Optional(Count),
  rawSize: Type.Optional(Count),
  checksum: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  tableStats: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Count)),
  databaseStats: Type.Optional(
    Type.Record(Type.String({ maxLength: 255 }), Type.Record(Type.String({ maxLength: 255 }), Count)),
  ),
  targets: Type.Optional(Type.Array(TargetOutcome, { maxItems: 100 })),
  errorMessage: Type.Optional(Type.String({ maxLength: 4000 })),
  /** With `failed`: why, as a stable code when known (docs/repositories.md#why-a-run-failed). */
  errorCode: Type.Optional(ErrorCode),
});
export type RecordUpdateInput = Static<typeof RecordUpdateInput>;

export const RecordTargetParams = Type.Object({ id: Id, targetId: Id });

/** The relay's reply: what the master stored on the target. */
export const RelayReply = Type.Object({ targetId: Type.Integer(), size: Type.Integer(), checksum: Type.String() });
export type RelayReply = Static<typeof RelayReply>;

// ---- restores on agents ---------------------------------------------------------------------------

/** `GET /api/agent/restores/:id/spec`. */
export const RestoreSpec = Type.Object({
  restoreId: Type.Integer(),
  backupRecordId: Type.Integer(),
  type: Type.String(),
  fileName: Type.String(),
  rawSize: Type.Integer(),
  rawExtension: Type.String(),
  targetPath: Type.String(),
  selectedPaths: Type.Array(Type.String()),
  /**
   * A differential: its full, applied first (fetched with `.../artifact?part=base`); null for
   * anything else (docs/differential.md).
   */
  base: Type.Union([
    Type.Null(),
    Type.Object({ backupRecordId: Type.Integer(), fileName: Type.String(), rawSize: Type.Integer() }),
  ]),
  /** A repository record: the snapshot to restore with restic, through the master's bridge at `path`; null otherwise. */
  repository: Type.Union([
    Type.Null(),
    Type.Object({ path: Type.String(), password: Type.String(), snapshotId: Type.String(), targetName: Type.String() }),
  ]),
  database: Type.Union([
    Type.Null(),
    Type.Object({
      type: Type.String(),
      host: Type.String(),
      port: Type.Integer(),
      user: Type.String(),
      password: Type.String(),
      path: Type.String(),
      target: Type.String(),
      /** A record of several databases: those to restore (empty = all), and the one's other name. */
      archive: Type.Optional(Type.Object({ databases: Type.Array(Type.String()), targetDatabase: Type.String() })),
    }),
  ]),
});
export type RestoreSpec = Static<typeof RestoreSpec>;

/** `GET /api/agent/restores/:id/artifact`: `part=base` is a differential's full. */
export const RestoreArtifactQuery = Type.Object({ part: Type.Optional(Type.Literal('base')) });

/** `POST /api/agent/restores/:id`. */
export const RestoreUpdateInput = Type.Object({
  status: Type.Optional(RunStatus),
  logs: Type.Optional(LogLines),
  errorMessage: Type.Optional(Type.String({ maxLength: 4000 })),
  bytes: Type.Optional(Count),
  entries: Type.Optional(Count),
});
export type RestoreUpdateInput = Static<typeof RestoreUpdateInput>;

/** The reply to a record or restore update: `accepted: false` tells the agent the run is over. */
export const UpdateReply = Type.Object({ accepted: Type.Boolean(), status: Type.String() });
export type UpdateReply = Static<typeof UpdateReply>;
