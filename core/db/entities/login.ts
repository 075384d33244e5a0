import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A client on which an account signed in before (OWASP's "device cookie"): it may still sign in
 * while the account is locked against everyone else. Only the SHA-256 of its random token is kept.
 */
export const LoginDeviceEntity = defineEntity({
  name: 'LoginDevice',
  tableName: 'login_devices',
  indexes: [{ name: 'login_devices_user_index', properties: ['userId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    tokenHash: p.string().length(64).unique(),
    /** Failed sign-ins from this client in a row: at the cap the token stops being trusted. */
    failures: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type LoginDevice = InferEntity<typeof LoginDeviceEntity>;

/**
 * Who holds the sign-in lane of an account or a device, across masters (core/auth/login-lanes.ts):
 * a row per lane while an attempt runs in it, taken with one conditional upsert and deleted after.
 */
export const LoginLeaseEntity = defineEntity({
  name: 'LoginLease',
  tableName: 'login_leases',
  properties: {
    lane: p.string().length(64).primary(),
    holder: p.string().length(32),
    expiresAt: p.datetime(),
  },
});
export type LoginLease = InferEntity<typeof LoginLeaseEntity>;

/**
 * One row per issued session token (its `jti`): the guard reads it on every request, so logging out
 * or revoking a session ends it on every master at once.
 */
export const UserSessionEntity = defineEntity({
  name: 'UserSession',
  tableName: 'user_sessions',
  indexes: [{ name: 'user_sessions_user_index', properties: ['userId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    /** The token's `jti`. */
    tokenId: p.string().length(32).unique(),
    userId: p.integer(),
    userAgent: p.string().length(255).default(''),
    ip: p.string().length(64).default(''),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Written at most once a minute by the guard. */
    lastUsedAt: p.datetime(),
    expiresAt: p.datetime(),
    revokedAt: p.datetime().nullable(),
  },
});
export type UserSession = InferEntity<typeof UserSessionEntity>;
