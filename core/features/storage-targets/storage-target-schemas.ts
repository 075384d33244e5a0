import { Type, type Static } from 'typebox';

const Name = Type.String({ minLength: 1, maxLength: 128 });
const ConfigObject = Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 200 });

export const TargetInput = Type.Object({
  name: Name,
  type: Type.String({ minLength: 1, maxLength: 64 }),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  enabled: Type.Optional(Type.Boolean()),
  config: Type.Optional(ConfigObject),
  quotaBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  agentDirectUpload: Type.Optional(Type.Boolean()),
});
export type TargetInput = Static<typeof TargetInput>;

/**
 * A connection test of unsaved settings. `targetId` (Backplane's) names the stored target being
 * edited: secrets left out (or sent masked) are taken from it, as an update would keep them.
 */
export const TargetTestInput = Type.Object({
  ...TargetInput.properties,
  targetId: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
});
export type TargetTestInput = Static<typeof TargetTestInput>;

/** Update: same fields; the type may be repeated but not changed. */
export const TargetUpdate = Type.Partial(TargetInput);
export type TargetUpdate = Static<typeof TargetUpdate>;

const Ts = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const TargetSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  starred: Type.Boolean(),
  configVersion: Type.Integer(),
  agentDirectUpload: Type.Boolean(),
  quotaBytes: Type.Number(),
  lastTestStatus: Type.String(),
  lastTestedAt: Ts,
  lastTestMessage: Type.String(),
  healthStatus: Type.String(),
  healthCheckedAt: Ts,
  healthMessage: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const TargetDetail = Type.Intersect([
  TargetSummary,
  Type.Object({
    config: Type.Record(Type.String(), Type.Unknown()),
    maskedFields: Type.Array(Type.String()),
  }),
]);

export const TestResultView = Type.Object({ success: Type.Boolean(), message: Type.String() });
