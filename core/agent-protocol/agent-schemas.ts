import { Type, type Static } from 'typebox';

const Level = Type.Union([Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')]);
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });

export const LogLines = Type.Array(Type.Object({ level: Level, message: Type.String({ maxLength: 4000 }) }), { maxItems: 500 });

export const PollReply = Type.Object({
  command: Type.Union([
    Type.Object({ id: Type.Integer(), type: Type.String(), payload: Type.Unknown(), attempt: Type.Integer(), leaseSeconds: Type.Integer() }),
    Type.Null(),
  ]),
});

export const CommandResultInput = Type.Object({
  success: Type.Boolean(),
  error: Type.Optional(Type.String({ maxLength: 4000 })),
  result: Type.Optional(Type.Unknown()),
});

export const TaskSpecQuery = Type.Object({ recordId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const RecordUpdateInput = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('running'), Type.Literal('success'), Type.Literal('failed')])),
  logs: Type.Optional(LogLines),
  progress: Type.Optional(Type.Object({ bytesRead: Count, bytesStored: Count, speedBps: Count, elapsedSeconds: Count })),
  manifest: Type.Optional(Type.Array(Type.Object({
    // Not `minLength`: an empty or unclean name fails the run (remote-backups), not just the request.
    path: Type.String({ maxLength: 4096 }),
    type: Type.Union([Type.Literal('file'), Type.Literal('directory'), Type.Literal('symlink')]),
    size: Count,
    mode: Type.Integer({ minimum: 0, maximum: 0o7777 }),
    mtime: Type.String({ format: 'date-time' }),
    linkname: Type.Optional(Type.String({ maxLength: 4096 })),
  }), { maxItems: 2000 })),
  fileSize: Type.Optional(Count),
  rawSize: Type.Optional(Count),
  checksum: Type.Optional(Type.String({ pattern: '^[0-9a-f]{64}$' })),
  tableStats: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Count)),
  databaseStats: Type.Optional(Type.Record(Type.String({ maxLength: 255 }), Type.Record(Type.String({ maxLength: 255 }), Count))),
  targets: Type.Optional(Type.Array(Type.Object({
    targetId: Type.Integer({ minimum: 1 }),
    status: Type.Union([Type.Literal('success'), Type.Literal('failed')]),
    size: Type.Optional(Count),
    error: Type.Optional(Type.String({ maxLength: 2000 })),
  }), { maxItems: 100 })),
  errorMessage: Type.Optional(Type.String({ maxLength: 4000 })),
});
export type RecordUpdateInput = Static<typeof RecordUpdateInput>;

export const RestoreUpdateInput = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('running'), Type.Literal('success'), Type.Literal('failed')])),
  logs: Type.Optional(LogLines),
  errorMessage: Type.Optional(Type.String({ maxLength: 4000 })),
  bytes: Type.Optional(Count),
  entries: Type.Optional(Count),
});

export const UpdateReply = Type.Object({ accepted: Type.Boolean(), status: Type.String() });

export const RecordTargetParams = Type.Object({
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
  targetId: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }),
});
