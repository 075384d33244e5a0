import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import { SettingEntity } from '../../db/entities/setting.ts';
import { hashPassword, verifyPassword, burnPasswordCheck } from '../../auth/passwords.ts';
import { revokeSessions } from '../../auth/session-revocation.ts';
import type { SessionTokens } from '../../auth/jwt.ts';
import type { LoginLimiter } from '../../auth/login-limiter.ts';
import { AppError } from '../../http/app-error.ts';

/** A settings row whose primary key makes first-admin setup happen at most once, even under races. */
const SETUP_MARKER = 'system.setup_completed_at';

export interface Session { token: string; expiresAt: Date; user: User }

export class AuthService {
  readonly #em: EntityManager;
  readonly #tokens: SessionTokens;
  readonly #limiter: LoginLimiter;

  constructor({ em, sessionTokens, loginLimiter }: { em: EntityManager; sessionTokens: SessionTokens; loginLimiter: LoginLimiter }) {
    this.#em = em;
    this.#tokens = sessionTokens;
    this.#limiter = loginLimiter;
  }

  async initialized(): Promise<boolean> {
    return (await this.#em.count(UserEntity, {})) > 0;
  }

  async setup(input: { username: string; password: string; displayName?: string }): Promise<Session> {
    if (await this.initialized()) throw new AppError('AUTH_SETUP_DISABLED');
    const passwordHash = await hashPassword(input.password);
    let user: User;
    try {
      user = await this.#em.transactional(async (em) => {
        if ((await em.count(UserEntity, {})) > 0) throw new AppError('AUTH_SETUP_DISABLED');
        em.create(SettingEntity, { key: SETUP_MARKER, value: new Date().toISOString() });
        return em.create(UserEntity, { username: input.username, passwordHash, displayName: input.displayName ?? input.username, role: 'admin' });
      });
    } catch (err) {
      // The losing side of a concurrent setup hits the marker's primary key.
      if (err instanceof UniqueConstraintViolationException) throw new AppError('AUTH_SETUP_DISABLED');
      throw err;
    }
    return this.#session(user);
  }

  /**
   * Password login. Unknown user and wrong password answer alike (and take as long);
   * attempts are limited per IP, failures per account and IP, and failures per account from anywhere
   * slow its answers down (every attempt counts as a failure until it succeeds). See LoginLimiter.
   */
  async login(input: { username: string; password: string }, clientIp: string): Promise<Session> {
    await this.#limiter.attempt(clientIp, input.username);
    const user = await this.#em.findOne(UserEntity, { username: input.username }, { populate: ['passwordHash'] });
    if (!user) {
      await burnPasswordCheck(input.password);
      throw new AppError('AUTH_INVALID_CREDENTIALS');
    }
    // A failure needs no further bookkeeping: attempt() already counted it.
    if (!(await verifyPassword(user.passwordHash, input.password))) throw new AppError('AUTH_INVALID_CREDENTIALS');
    // Only after the password is proven do we say the account is disabled.
    if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
    await this.#limiter.succeeded(clientIp, input.username);
    return this.#session(user);
  }

  /**
   * Changes the caller's password and revokes every other session of theirs. The calling
   * session (`keepSession`, its token id) stays open, as the reference's console expects: it
   * keeps its token after the change.
   */
  async changePassword(userId: number, keepSession: string | undefined, oldPassword: string, newPassword: string): Promise<User> {
    const user = await this.#em.findOne(UserEntity, { id: userId }, { populate: ['passwordHash'] });
    if (!user) throw new AppError('AUTH_UNAUTHORIZED');
    if (!(await verifyPassword(user.passwordHash, oldPassword))) throw new AppError('AUTH_WRONG_PASSWORD');
    user.passwordHash = await hashPassword(newPassword);
    revokeSessions(user, keepSession);
    await this.#em.flush();
    return user;
  }

  async #session(user: User): Promise<Session> {
    const { token, expiresAt } = await this.#tokens.issue({ userId: user.id, role: user.role, tokenVersion: user.tokenVersion });
    return { token, expiresAt, user };
  }
}
