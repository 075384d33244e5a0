import { Type, type Static } from 'typebox';

const ConfigObject = Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 100 });

/** A channel's fields, and whether it gets the daily digest. */
export const ChannelInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  enabled: Type.Optional(Type.Boolean()),
  onSuccess: Type.Optional(Type.Boolean()),
  onFailure: Type.Optional(Type.Boolean()),
  eventTypes: Type.Optional(
    Type.Union([Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 }), Type.Null()]),
  ),
  config: ConfigObject,
  /** '' (or 'off'): every event as it happens; 'daily': one digest a day at `digestTime`. */
  digest: Type.Optional(Type.Union([Type.Literal(''), Type.Literal('off'), Type.Literal('daily')])),
  digestTime: Type.Optional(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' })),
});
export type ChannelInput = Static<typeof ChannelInput>;

/** An update: the same fields, all optional (a console may send them all). */
export const ChannelUpdate = Type.Partial(ChannelInput);
export type ChannelUpdate = Static<typeof ChannelUpdate>;

/** A test of an unsaved channel: its type and config (a client may send the whole form). */
export const ChannelTestInput = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 100 })),
  type: Type.String({ minLength: 1, maxLength: 64 }),
  enabled: Type.Optional(Type.Boolean()),
  onSuccess: Type.Optional(Type.Boolean()),
  onFailure: Type.Optional(Type.Boolean()),
  eventTypes: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 64 }), Type.Null()])),
  config: ConfigObject,
  digest: Type.Optional(Type.String({ maxLength: 16 })),
  digestTime: Type.Optional(Type.String({ maxLength: 5 })),
});
export type ChannelTestInput = Static<typeof ChannelTestInput>;

export const ChannelSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  onSuccess: Type.Boolean(),
  onFailure: Type.Boolean(),
  eventTypes: Type.Array(Type.String()),
  digest: Type.String(),
  digestTime: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const ChannelDetail = Type.Intersect([
  ChannelSummary,
  Type.Object({
    config: Type.Record(Type.String(), Type.Unknown()),
    maskedFields: Type.Array(Type.String()),
  }),
]);

export const DeliveryView = Type.Object({
  id: Type.Integer(),
  eventId: Type.Integer(),
  eventType: Type.String(),
  title: Type.String(),
  subject: Type.String(),
  status: Type.String(),
  attempts: Type.Integer(),
  lastError: Type.String(),
  coalescedCount: Type.Integer(),
  mergedInto: Type.Union([Type.Integer(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  deliveredAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  attemptLog: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      outcome: Type.String(),
      errorKind: Type.String(),
      error: Type.String(),
      durationMs: Type.Integer(),
      at: Type.String({ format: 'date-time' }),
    }),
  ),
});

export const DeliveryQuery = Type.Object({
  status: Type.Optional(
    Type.Union(
      ['pending', 'sending', 'delivered', 'failed', 'coalesced', 'held', 'digested'].map((s) => Type.Literal(s)),
    ),
  ),
});

export const ChannelTypeView = Type.Object({
  type: Type.String(),
  displayName: Type.String(),
  description: Type.String(),
  configSchema: Type.Record(Type.String(), Type.Unknown()),
  secretFields: Type.Array(Type.String()),
  addressKinds: Type.Array(Type.String()),
  options: Type.Array(
    Type.Object({
      key: Type.String(),
      label: Type.String(),
      required: Type.Boolean(),
      isPassword: Type.Boolean(),
      default: Type.Optional(Type.String()),
      advanced: Type.Boolean(),
    }),
  ),
});
