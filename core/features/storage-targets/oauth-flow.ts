import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Type, type Static } from 'typebox';
import { OAuthSessionEntity } from '../../db/entities/oauth-session.ts';
import type { StorageTarget } from '../../db/entities/storage-target.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { hashToken } from '../../security/tokens.ts';
import { providerErrorKind } from '@backplane/plugin-api';
import { AppError } from '../../http/app-error.ts';
import { providerFailure, trimReason } from '../../storage/target-opener.ts';
import { validateConfig } from '../../plugin-host/provider-config.ts';
import type { StorageTargetService } from './storage-target-service.ts';
import { CALLBACK_PAGE_PATH } from './oauth-callback-page.ts';

const SESSION_TTL_MS = 10 * 60_000;
const PAYLOAD_AAD = 'oauth_sessions.payload';
export const GOOGLE_DRIVE = 'google_drive';

export const AuthUrlBody = Type.Object({
  targetId: Type.Optional(Type.Integer({ minimum: 1 })),
  /** A client may send its whole target draft: the type (google_drive only) and the quota come along. */
  type: Type.Optional(Type.String({ maxLength: 64 })),
  quotaBytes: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  description: Type.Optional(Type.String({ maxLength: 500 })),
  enabled: Type.Optional(Type.Boolean()),
  clientId: Type.Optional(Type.String({ maxLength: 512 })),
  clientSecret: Type.Optional(Type.String({ maxLength: 512 })),
  folderId: Type.Optional(Type.String({ maxLength: 256 })),
  config: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), Type.Unknown(), { maxProperties: 50 })),
  /** Where Google sends the browser back; defaults to the page Backplane serves (`CALLBACK_PAGE_PATH`). */
  redirectUri: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
});
export type AuthUrlBody = Static<typeof AuthUrlBody>;

interface Draft {
  targetId: number | null;
  name: string;
  description: string;
  enabled: boolean;
  config: Record<string, unknown>;
  redirectUri: string;
  /** Absent in drafts of older versions, null when the request did not set one. */
  quotaBytes?: number | null;
}

/**
 * The Google Drive authorisation flow: a sealed, single-use, ten-minute draft keyed by the
 * hash of `state`; `complete` exchanges the code and creates (or re-authorises) the target.
 */
export class StorageOAuthFlow {
  readonly #em: EntityManager;
  readonly #box: SecretBox;
  readonly #targets: StorageTargetService;

  constructor({
    em,
    secretBox,
    storageTargets,
  }: { em: EntityManager; secretBox: SecretBox; storageTargets: StorageTargetService }) {
    this.#em = em;
    this.#box = secretBox;
    this.#targets = storageTargets;
  }

  async start(
    body: AuthUrlBody,
    actorId: number | null,
    baseUrl: string,
  ): Promise<{ authUrl: string; state: string; redirectUri: string; expiresAt: string }> {
    const type = this.#targets.opener.type(GOOGLE_DRIVE);
    if (!type.oauth)
      throw new AppError('STORAGE_PROVIDER_UNSUPPORTED', { message: 'The google_drive type has no OAuth flow.' });
    if (body.type !== undefined && body.type !== GOOGLE_DRIVE)
      throw new AppError('STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH', {
        message: `Only google_drive targets are authorised here, not type "${body.type}".`,
      });
    const incoming: Record<string, unknown> = { ...body.config };
    for (const key of ['clientId', 'clientSecret', 'folderId'] as const)
      if (body[key] !== undefined) incoming[key] = body[key];
    let name = body.name;
    let description = body.description ?? '';
    let config: Record<string, unknown>;
    if (body.targetId) {
      // Re-authorisation: masked or empty client credentials fall back to the stored ones.
      const target = await this.#targets.get(body.targetId);
      if (target.type !== GOOGLE_DRIVE) throw new AppError('STORAGE_GOOGLE_DRIVE_TYPE_MISMATCH');
      config = { ...this.#targets.opener.fullConfig(target), ...stripMasks(incoming) };
      name ??= target.name;
      description = body.description ?? target.description;
    } else {
      if (!name)
        throw new AppError('INVALID_INPUT', {
          details: [{ path: 'body/name', message: 'must have required property name' }],
        });
      config = incoming;
    }
    // Checked now (clientId and clientSecret are required), not after the user went through Google's consent page.
    validateConfig(type, config);
    const redirectUri = body.redirectUri ?? `${baseUrl}${CALLBACK_PAGE_PATH}`;
    const state = randomBytes(24).toString('base64url');
    const draft: Draft = {
      targetId: body.targetId ?? null,
      name,
      description,
      enabled: body.enabled ?? true,
      config,
      redirectUri,
      quotaBytes: body.quotaBytes ?? null,
    };
    let authUrl: string;
    try {
      // Building the URL checks the settings (a malformed folder id, a client id no URL can carry):
      // the caller's input, so a 400 naming it, and no session is kept for it.
      authUrl = type.oauth.authUrl(config, { state, redirectUri }, this.#targets.opener.deps());
    } catch (err) {
      throw providerFailure(err);
    }
    const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
    this.#em.create(OAuthSessionEntity, {
      stateHash: hashToken(state),
      provider: GOOGLE_DRIVE,
      targetId: draft.targetId,
      payload: this.#box.seal(JSON.stringify(draft), PAYLOAD_AAD),
      createdById: actorId,
      expiresAt,
      usedAt: null,
    });
    await this.#em.flush();
    return { authUrl, state, redirectUri, expiresAt: expiresAt.toISOString() };
  }

  async complete(state: string, code: string): Promise<StorageTarget> {
    const now = new Date();
    // Claim the session atomically: of two concurrent completions only one updates the row.
    const claimed = await this.#em.nativeUpdate(
      OAuthSessionEntity,
      { stateHash: hashToken(state), usedAt: null, expiresAt: { $gt: now } },
      { usedAt: now },
    );
    if (claimed !== 1) throw new AppError('STORAGE_GOOGLE_OAUTH_STATE_INVALID');
    const session = await this.#em.findOneOrFail(OAuthSessionEntity, { stateHash: hashToken(state) });
    const draft = JSON.parse(this.#box.open(session.payload, PAYLOAD_AAD)) as Draft;
    const type = this.#targets.opener.type(GOOGLE_DRIVE);
    let secrets: Record<string, string>;
    try {
      secrets = await type.oauth!.exchange(
        draft.config,
        { code, redirectUri: draft.redirectUri },
        this.#targets.opener.deps(),
      );
    } catch (err) {
      if (providerErrorKind(err) === 'unsupported')
        throw new AppError('STORAGE_PROVIDER_UNAVAILABLE', { message: trimReason(err) });
      throw new AppError('STORAGE_GOOGLE_OAUTH_EXCHANGE_FAILED', {
        message: `Google refused the authorisation: ${trimReason(err)}`,
      });
    }
    if (draft.targetId) {
      return this.#targets.update(
        draft.targetId,
        { config: draft.config, description: draft.description, quotaBytes: draft.quotaBytes ?? undefined },
        secrets,
      );
    }
    return this.#targets.create(
      {
        name: draft.name,
        type: GOOGLE_DRIVE,
        description: draft.description,
        enabled: draft.enabled,
        config: draft.config,
        quotaBytes: draft.quotaBytes ?? undefined,
      },
      secrets,
    );
  }

  /** Drops expired and used sessions (called by the health monitor's sweep). */
  async purge(): Promise<number> {
    return this.#em.nativeDelete(OAuthSessionEntity, {
      $or: [{ expiresAt: { $lt: new Date() } }, { usedAt: { $ne: null } }],
    });
  }
}

function stripMasks(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([, v]) => v !== '' && v !== '********'));
}
