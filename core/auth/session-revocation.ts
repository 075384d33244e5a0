import type { EntityManager } from '@mikro-orm/core';
import type { User } from '../db/entities/user.ts';
import type { SessionClaims } from './jwt.ts';
import { revokeUserSessions } from './sessions.ts';

/**
 * Ends every session of the user at once: their tokens carry the old token version, and their
 * rows are marked revoked (the sessions list no longer shows them). `keep` names one session (a
 * token id) that stays open: the caller's own, when they change their own password, so the console
 * they are using goes on working while every other login is closed. A later revocation without
 * `keep` closes that session too. The user row is the caller's to flush.
 */
export async function revokeSessions(em: EntityManager, user: User, keep?: string): Promise<void> {
  user.tokenVersion += 1;
  user.keptSessionId = keep ?? null;
  await revokeUserSessions(em, user.id, new Date(), keep);
}

/** Whether a verified token still opens a session of this (enabled) user. */
export function sessionIsOpen(user: Pick<User, 'tokenVersion' | 'keptSessionId'>, claims: SessionClaims): boolean {
  if (claims.tokenVersion === user.tokenVersion) return true;
  return claims.sessionId !== undefined && claims.sessionId === user.keptSessionId;
}
