import type { EntityManager } from '@mikro-orm/core';
import { UserSessionEntity, type UserSession } from '../db/entities/login.ts';

/**
 * The rows of issued session tokens (`user_sessions`). A token opens a session only while its
 * row exists and is not revoked (core/auth/guard.ts reads it on every request), so logging out or
 * revoking ends a session on every master at once, while the token itself stays stateless.
 */

/** Records a newly issued token; the user's expired rows go at the same time (they can open nothing). */
export async function recordSession(
  em: EntityManager,
  input: { tokenId: string; userId: number; userAgent: string; ip: string; expiresAt: Date; now: Date },
): Promise<UserSession> {
  await em.nativeDelete(UserSessionEntity, { userId: input.userId, expiresAt: { $lte: input.now } });
  const row = em.create(UserSessionEntity, {
    tokenId: input.tokenId,
    userId: input.userId,
    userAgent: input.userAgent.slice(0, 255),
    ip: input.ip.slice(0, 64),
    createdAt: input.now,
    lastUsedAt: input.now,
    expiresAt: input.expiresAt,
  });
  await em.flush();
  return row;
}

/** The user's sessions that can still open something, newest use first. */
export function liveSessions(em: EntityManager, userId: number, now: Date): Promise<UserSession[]> {
  return em.find(
    UserSessionEntity,
    { userId, revokedAt: null, expiresAt: { $gt: now } },
    { orderBy: { lastUsedAt: 'desc', id: 'desc' } },
  );
}

/** Ends one live session of this user, by row id; whether there was one. */
export async function revokeSession(em: EntityManager, userId: number, id: number, now: Date): Promise<boolean> {
  const changed = await em.nativeUpdate(
    UserSessionEntity,
    { id, userId, revokedAt: null, expiresAt: { $gt: now } },
    { revokedAt: now },
  );
  return changed > 0;
}

/** Ends the session of one token (logout). */
export async function revokeSessionOfToken(em: EntityManager, tokenId: string, now: Date): Promise<void> {
  await em.nativeUpdate(UserSessionEntity, { tokenId, revokedAt: null }, { revokedAt: now });
}

/** Ends every live session of the user but the one of `keepTokenId`; how many it ended. */
export function revokeUserSessions(
  em: EntityManager,
  userId: number,
  now: Date,
  keepTokenId?: string,
): Promise<number> {
  return em.nativeUpdate(
    UserSessionEntity,
    {
      userId,
      revokedAt: null,
      expiresAt: { $gt: now },
      ...(keepTokenId === undefined ? {} : { tokenId: { $ne: keepTokenId } }),
    },
    { revokedAt: now },
  );
}
