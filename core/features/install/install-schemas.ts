import { Type, type Static } from 'typebox';
import { Timestamp } from '../../http/schemas.ts';
import { DOWNLOAD_SOURCES, INSTALL_ARCHES, INSTALL_MODES } from './install-options.ts';

export const MIN_TTL_MINUTES = 5;
export const MAX_TTL_MINUTES = 1440;
export const DEFAULT_TTL_MINUTES = 60;

/** One of the values, or '' (the default). */
const OneOf = <V extends string>(values: readonly V[]) =>
  Type.Union([Type.Literal(''), ...values.map((v) => Type.Literal(v))]);

/** The installer options (request fields of the install-token route and query of its preview). */
const Options = {
  mode: Type.Optional(OneOf(INSTALL_MODES)),
  arch: Type.Optional(OneOf(INSTALL_ARCHES)),
  agentVersion: Type.Optional(Type.String({ maxLength: 64 })),
  downloadSrc: Type.Optional(OneOf(DOWNLOAD_SOURCES)),
  agentMasterUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  proxyUrl: Type.Optional(Type.String({ maxLength: 2048 })),
  caCertFile: Type.Optional(Type.String({ maxLength: 512 })),
};

export const InstallTokenInput = Type.Object(
  {
    /** Backplane's lifetime field. */
    ttlMinutes: Type.Optional(Type.Integer({ minimum: MIN_TTL_MINUTES, maximum: MAX_TTL_MINUTES })),
    /** The other lifetime field: 300-86400 seconds, 0 = the default. */
    ttlSeconds: Type.Optional(
      Type.Union([Type.Literal(0), Type.Integer({ minimum: MIN_TTL_MINUTES * 60, maximum: MAX_TTL_MINUTES * 60 })]),
    ),
    ...Options,
  },
  { additionalProperties: false },
);
export type InstallTokenInput = Static<typeof InstallTokenInput>;

/** The created installer; `token`, `installUrl` and `command` repeat values under Backplane's own names (docs/api-decisions.md). */
export const InstallTokenCreated = Type.Object({
  installToken: Type.String(),
  expiresAt: Timestamp,
  url: Type.String(),
  fallbackUrl: Type.String(),
  scriptBase64: Type.String(),
  composeUrl: Type.String(),
  fallbackComposeUrl: Type.String(),
  token: Type.String(),
  installUrl: Type.String(),
  command: Type.String(),
});

export const InstallPreviewQuery = Type.Object({
  ...Options,
  /** `script` (the default) or `compose` (the compose file of the same installer). */
  format: Type.Optional(Type.Union([Type.Literal('script'), Type.Literal('compose')])),
});

export const InstallTokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) });
