import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ROLES, type Role } from './user.ts';

export const ApiKeyEntity = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.integer().primary().autoincrement(),
    name: p.string().length(128),
    role: p.enum(ROLES as unknown as Role[]),
    /** The first characters of the key, for display; the key itself is only ever stored hashed. */
    prefix: p.string().length(16),
    keyHash: p.string().length(64).unique(),
    createdById: p.integer().nullable(),
    createdByName: p.string().length(64).default(''),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
    disabled: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ApiKey = InferEntity<typeof ApiKeyEntity>;
