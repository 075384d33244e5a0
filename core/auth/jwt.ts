import { randomBytes, webcrypto } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Role } from '../db/entities/user.ts';

export interface SessionClaims {
  userId: number;
  role: Role;
  tokenVersion: number;
  /** The token's own id (`jti`): names one session, so it can outlive a revocation it caused. Tokens issued before it existed have none. */
  sessionId?: string;
  /**
   * A session of an admin who must enrol a second factor (`mfa_required_for_admins`) and whose
   * grace period is over: it opens the enrolment routes only.
   */
  enrolmentOnly?: boolean;
}

const ISSUER = 'backplane';

/** Verified tokens remembered at most (each until its own expiry); past it the map starts afresh. */
const VERIFIED_MAX = 10_000;

/**
 * HS256 session tokens; revocation comes from the session's row and the token version, both read per request.
 * A token whose signature was checked is remembered with its claims until it expires: every
 * request presents one, and verifying it again (an HMAC through WebCrypto, a job on the thread
 * pool) was the largest item of the profile route after the database (bench/api.ts). What can
 * revoke a session (logout, a revoked session, disabled user, new role or password, token
 * version) is read per request from the database, not from this memory.
 */
export class SessionTokens {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;
  /** The HMAC key imported once: a raw key is imported again on every sign and verify. */
  #cryptoKey: Promise<webcrypto.CryptoKey> | undefined;
  readonly #verified = new Map<string, { claims: SessionClaims; expiresAt: number }>();

  constructor(key: Buffer, ttlSeconds: number) {
    this.#key = new Uint8Array(key);
    this.#ttlSeconds = ttlSeconds;
  }

  #signingKey(): Promise<webcrypto.CryptoKey> {
    this.#cryptoKey ??= webcrypto.subtle.importKey('raw', this.#key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    return this.#cryptoKey;
  }

  /** A new token; `sessionId` is its `jti`, the key of its row in `user_sessions` (core/auth/sessions.ts). */
  async issue(
    claims: Omit<SessionClaims, 'sessionId'>,
  ): Promise<{ token: string; expiresAt: Date; sessionId: string }> {
    const expiresAt = new Date(Date.now() + this.#ttlSeconds * 1000);
    const sessionId = randomBytes(16).toString('base64url');
    const token = await new SignJWT({
      role: claims.role,
      tv: claims.tokenVersion,
      ...(claims.enrolmentOnly ? { scp: 'mfa-enrol' } : {}),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setJti(sessionId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(await this.#signingKey());
    return { token, expiresAt, sessionId };
  }

  /** Returns the claims, or undefined for any invalid, expired or foreign token. */
  async verify(token: string, now = Date.now()): Promise<SessionClaims | undefined> {
    const known = this.#verified.get(token);
    if (known) {
      if (known.expiresAt > now) return known.claims;
      this.#verified.delete(token);
      return undefined;
    }
    try {
      const { payload } = await jwtVerify(token, await this.#signingKey(), { algorithms: ['HS256'], issuer: ISSUER });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.tv !== 'number' || typeof payload.exp !== 'number')
        return undefined;
      const claims: SessionClaims = {
        userId,
        role: payload.role as Role,
        tokenVersion: payload.tv,
        ...(typeof payload.jti === 'string' ? { sessionId: payload.jti } : {}),
        ...(payload.scp === 'mfa-enrol' ? { enrolmentOnly: true } : {}),
      };
      if (this.#verified.size >= VERIFIED_MAX) this.#verified.clear();
      this.#verified.set(token, { claims, expiresAt: payload.exp * 1000 });
      return claims;
    } catch {
      return undefined;
    }
  }
}
