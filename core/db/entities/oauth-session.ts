import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A pending OAuth authorisation (e.g. Google Drive): single use, short-lived. Only the hash of
 * the `state` is stored; what the flow needs to finish (client secret, target settings) is sealed.
 */
export const OAuthSessionEntity = defineEntity({
  name: 'OAuthSession',
  tableName: 'oauth_sessions',
  properties: {
    id: p.integer().primary().autoincrement(),
    stateHash: p.string().length(64).unique(),
    provider: p.string().length(64),
    /** The target being re-authorised, or null when the flow creates a new one. */
    targetId: p.integer().nullable(),
    payload: p.text(),
    createdById: p.integer().nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type OAuthSession = InferEntity<typeof OAuthSessionEntity>;
