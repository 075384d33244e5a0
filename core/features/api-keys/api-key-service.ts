import type { EntityManager } from '@mikro-orm/core';
import { Type, type Static } from 'typebox';
import { ApiKeyEntity, type ApiKey } from '../../db/entities/api-key.ts';
import { UserEntity, type Role } from '../../db/entities/user.ts';
import type { Principal } from '../../auth/principal.ts';
import { lowerRole } from '../../auth/roles.ts';
import { AppError } from '../../http/app-error.ts';
import { rowLimit } from '../../http/schemas.ts';
import { generateToken, hashToken, looksLike } from '../../security/tokens.ts';

/** Writing last-used on every request would turn reads into writes; once a minute is enough. */
const LAST_USED_GRANULARITY_MS = 60_000;

export const ApiKeyView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  role: Type.String(),
  prefix: Type.String(),
  createdBy: Type.String(),
  // Absent until first use / for a key that never expires, as the reference omits them.
  lastUsedAt: Type.Optional(Type.String({ format: 'date-time' })),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
  disabled: Type.Boolean(),
  expired: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
export type ApiKeyView = Static<typeof ApiKeyView>;

export function toApiKeyView(key: ApiKey, now = new Date()): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    role: key.role,
    prefix: key.prefix,
    createdBy: key.createdByName,
    ...(key.lastUsedAt ? { lastUsedAt: key.lastUsedAt.toISOString() } : {}),
    ...(key.expiresAt ? { expiresAt: key.expiresAt.toISOString() } : {}),
    disabled: key.disabled,
    expired: key.expiresAt !== null && key.expiresAt !== undefined && key.expiresAt <= now,
    createdAt: key.createdAt.toISOString(),
  };
}

export class ApiKeyService {
  readonly #em: EntityManager;

  constructor({ em }: { em: EntityManager }) {
    this.#em = em;
  }

  async create(
    input: { name: string; role: Role; ttlHours?: number },
    creator: { id: number | null; name: string },
  ): Promise<{ key: ApiKey; plainKey: string }> {
    const plainKey = generateToken('apiKey');
    const key = this.#em.create(ApiKeyEntity, {
      name: input.name,
      role: input.role,
      prefix: plainKey.slice(0, 12),
      keyHash: hashToken(plainKey),
      createdById: creator.id,
      // The column holds 64 characters; `api-key:<name>` of a key-created key can be longer (PostgreSQL would refuse the row).
      createdByName: creator.name.slice(0, 64),
      expiresAt: input.ttlHours ? new Date(Date.now() + input.ttlHours * 3600_000) : null,
      disabled: false,
    });
    await this.#em.flush();
    return { key, plainKey };
  }

  async list(page: { limit?: number; offset: number }): Promise<[ApiKey[], number]> {
    return this.#em.findAndCount(
      ApiKeyEntity,
      {},
      { orderBy: { id: 'asc' }, limit: rowLimit(page.limit), offset: page.offset },
    );
  }

  async get(id: number): Promise<ApiKey> {
    const key = await this.#em.findOne(ApiKeyEntity, { id });
    if (!key) throw new AppError('API_KEY_NOT_FOUND');
    return key;
  }

  /** Sets the disabled state; without a value it flips it. */
  async toggle(id: number, disabled?: boolean): Promise<ApiKey> {
    const key = await this.get(id);
    key.disabled = disabled ?? !key.disabled;
    await this.#em.flush();
    return key;
  }

  async revoke(id: number): Promise<ApiKey> {
    const key = await this.get(id);
    await this.#em.remove(key).flush();
    return key;
  }

  /** Resolves a presented key to a principal, or refuses with the reason. */
  async authenticate(plainKey: string): Promise<Principal> {
    if (!looksLike('apiKey', plainKey)) throw new AppError('AUTH_UNAUTHORIZED');
    const key = await this.#em.findOne(ApiKeyEntity, { keyHash: hashToken(plainKey) });
    if (!key) throw new AppError('AUTH_UNAUTHORIZED');
    if (key.disabled) throw new AppError('AUTH_KEY_DISABLED');
    const now = new Date();
    if (key.expiresAt && key.expiresAt <= now) throw new AppError('AUTH_KEY_EXPIRED');
    // A key acts for its creator and never beyond the creator's current rights: demoting,
    // disabling or deleting the user takes effect on their keys at once, as it does on sessions.
    const creator =
      key.createdById === null || key.createdById === undefined
        ? null
        : await this.#em.findOne(UserEntity, { id: key.createdById });
    if (!creator) throw new AppError('AUTH_KEY_CREATOR_DELETED');
    if (creator.disabled) throw new AppError('AUTH_KEY_CREATOR_DISABLED');
    if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
      await this.#em.nativeUpdate(ApiKeyEntity, { id: key.id }, { lastUsedAt: now });
    }
    return {
      kind: 'apiKey',
      keyId: key.id,
      name: key.name,
      role: lowerRole(key.role, creator.role),
      createdById: creator.id,
    };
  }
}
