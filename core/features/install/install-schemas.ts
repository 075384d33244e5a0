import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';

export const MIN_TTL_MINUTES = 5;
export const MAX_TTL_MINUTES = 1440;
export const DEFAULT_TTL_MINUTES = 60;

export const InstallTokenInput = Type.Object({
  ttlMinutes: Type.Optional(Type.Integer({ minimum: MIN_TTL_MINUTES, maximum: MAX_TTL_MINUTES })),
}, { additionalProperties: false });
export type InstallTokenInput = Static<typeof InstallTokenInput>;

export const InstallTokenCreated = Type.Object({
  token: Type.String(),
  expiresAt: Timestamp,
  installUrl: Type.String(),
  composeUrl: Type.String(),
  command: Type.String(),
});

export const InstallTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) });

export const EnrollInput = Type.Object({ code: Type.String({ minLength: 1, maxLength: 256 }) }, { additionalProperties: false });
export type EnrollInput = Static<typeof EnrollInput>;

export const EnrollResult = Type.Object({
  nodeId: Type.Integer(),
  nodeName: Type.String(),
  token: Type.String(),
  masterUrl: Type.String(),
});

export const InstallPreview = Type.Object({ script: Type.String(), compose: Type.String() });
