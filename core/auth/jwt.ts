import { randomBytes } from 'node:crypto';
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

/** Stateless HS256 session tokens; revocation comes from the token version checked per request. */
export class SessionTokens {
  readonly #key: Uint8Array;
  readonly #ttlSeconds: number;

  constructor(key: Buffer, ttlSeconds: number) {
    this.#key = new Uint8Array(key);
    this.#ttlSeconds = ttlSeconds;
  }

  async issue(claims: Omit<SessionClaims, 'sessionId'>): Promise<{ token: string; expiresAt: Date }> {
    const expiresAt = new Date(Date.now() + this.#ttlSeconds * 1000);
    const token = await new SignJWT({ role: claims.role, tv: claims.tokenVersion, ...(claims.enrolmentOnly ? { scp: 'mfa-enrol' } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(String(claims.userId))
      .setIssuer(ISSUER)
      .setJti(randomBytes(16).toString('base64url'))
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.#key);
    return { token, expiresAt };
  }

  /** Returns the claims, or undefined for any invalid, expired or foreign token. */
  async verify(token: string): Promise<SessionClaims | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'], issuer: ISSUER });
      const userId = Number(payload.sub);
      if (!Number.isSafeInteger(userId) || typeof payload.tv !== 'number') return undefined;
      return { userId, role: payload.role as Role, tokenVersion: payload.tv, ...(typeof payload.jti === 'string' ? { sessionId: payload.jti } : {}), ...(payload.scp === 'mfa-enrol' ? { enrolmentOnly: true } : {}) };
    } catch {
      return undefined;
    }
  }
}
