import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException, LockMode } from '@mikro-orm/core';
import { dialectOf } from '../../db/migrations/dialect.ts';
import { UserEntity, type User, type Role } from '../../db/entities/user.ts';
import { hashPassword } from '../../auth/passwords.ts';
import { revokeSessions } from '../../auth/session-revocation.ts';
import { AggregateSql, bool, timeOf } from '../../db/aggregate-sql.ts';
import type { UserFields } from './user-view.ts';
import type { FactorFlags } from '../../auth/mfa/factor-summary.ts';
import { revokeDevicesAndPendingCodes, wipeFactors } from '../../auth/mfa/factor-reset.ts';
import { LoginOtpEntity } from '../../db/entities/account-security.ts';
import { UserIdentityEntity, OidcLoginCodeEntity } from '../../db/entities/single-sign-on.ts';
import { LoginDeviceEntity, UserSessionEntity } from '../../db/entities/login.ts';
import { AppError } from '../../http/app-error.ts';
import { rowLimit } from '../../http/schemas.ts';
import type { CreateUserInput, UpdateUserInput } from './user-schemas.ts';

export class UserService {
  readonly #em: EntityManager;

  constructor({ em }: { em: EntityManager }) {
    this.#em = em;
  }

  /**
   * The fields a view shows, read with one hand-written statement (the profile is fetched by
   * every console page; see AggregateSql for why not the ORM here).
   */
  async viewFields(id: number): Promise<UserFields & FactorFlags> {
    const sql = new AggregateSql(this.#em);
    const [r] = await sql.rows(
      'select id, username, display_name, email, phone, role, disabled, totp_enabled, email_otp_enabled, sms_otp_enabled,' +
        ' failed_login_count, locked_until, created_at, updated_at from users where id = ?',
      [id],
    );
    if (!r) throw new AppError('USER_NOT_FOUND');
    return {
      id: Number(r.id),
      username: String(r.username),
      displayName: String(r.display_name),
      email: String(r.email),
      phone: String(r.phone),
      role: r.role as Role,
      disabled: bool(r.disabled),
      totpEnabled: bool(r.totp_enabled),
      emailOtpEnabled: bool(r.email_otp_enabled),
      smsOtpEnabled: bool(r.sms_otp_enabled),
      failedLoginCount: Number(r.failed_login_count),
      lockedUntil: timeOf(r.locked_until),
      createdAt: timeOf(r.created_at)!,
      updatedAt: timeOf(r.updated_at)!,
    };
  }

  async get(id: number): Promise<User> {
    const user = await this.#em.findOne(UserEntity, { id });
    if (!user) throw new AppError('USER_NOT_FOUND');
    return user;
  }

  async list(page: { limit?: number; offset: number }): Promise<[User[], number]> {
    return this.#em.findAndCount(
      UserEntity,
      {},
      { orderBy: { id: 'asc' }, limit: rowLimit(page.limit), offset: page.offset },
    );
  }

  async create(input: CreateUserInput): Promise<User> {
    const user = this.#em.create(UserEntity, {
      username: input.username,
      passwordHash: await hashPassword(input.password),
      displayName: input.displayName ?? input.username,
      email: input.email ?? '',
      phone: input.phone ?? '',
      role: input.role ?? 'viewer',
      disabled: input.disabled ?? false,
    });
    try {
      await this.#em.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('USER_USERNAME_EXISTS');
      throw err;
    }
    return user;
  }

  /**
   * Updates a user. The last enabled admin can be neither demoted nor disabled; a change of
   * password, role or enabled state revokes the user's sessions. An admin who only changes
   * their own password keeps the session they made the change with (`acting.sessionId`).
   */
  async update(
    id: number,
    input: UpdateUserInput,
    acting: { userId: number | null; sessionId?: string },
  ): Promise<User> {
    // Hash before the transaction: argon2 takes a few hundred ms, and SQLite has one writer.
    const passwordHash = input.password ? await hashPassword(input.password) : undefined;
    try {
      return await this.#em.transactional(async (em) => {
        const user = await em.findOne(UserEntity, { id });
        if (!user) throw new AppError('USER_NOT_FOUND');
        const losesAdmin =
          user.role === 'admin' &&
          !user.disabled &&
          ((input.role !== undefined && input.role !== 'admin') || input.disabled === true);
        if (losesAdmin) await this.#assertAnotherAdmin(em, user.id);
        let revokeAll = false;
        if (input.role !== undefined && input.role !== user.role) {
          user.role = input.role;
          revokeAll = true;
        }
        if (input.disabled !== undefined && input.disabled !== user.disabled) {
          user.disabled = input.disabled;
          revokeAll = true;
        }
        if (input.username !== undefined) user.username = input.username;
        if (input.displayName !== undefined) user.displayName = input.displayName;
        if (input.email !== undefined && input.email !== user.email) {
          user.email = input.email;
          // A code sent to the old address must not be usable; no address, no email codes.
          await em.nativeDelete(LoginOtpEntity, { userId: user.id });
          if (user.email === '') user.emailOtpEnabled = false;
        }
        if (input.phone !== undefined && input.phone !== user.phone) {
          user.phone = input.phone;
          await em.nativeDelete(LoginOtpEntity, { userId: user.id });
          if (user.phone === '') user.smsOtpEnabled = false;
        }
        if (passwordHash !== undefined) {
          user.passwordHash = passwordHash;
          await revokeDevicesAndPendingCodes(em, user.id);
          await revokeSessions(em, user, !revokeAll && acting.userId === user.id ? acting.sessionId : undefined);
        } else if (revokeAll) {
          await revokeSessions(em, user);
        }
        return user;
      });
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException) throw new AppError('USER_USERNAME_EXISTS');
      throw err;
    }
  }

  async delete(id: number, actingUserId: number | null): Promise<User> {
    return this.#em.transactional(async (em) => {
      const user = await em.findOne(UserEntity, { id });
      if (!user) throw new AppError('USER_NOT_FOUND');
      if (actingUserId === user.id) throw new AppError('USER_SELF_DELETE');
      if (user.role === 'admin' && !user.disabled) await this.#assertAnotherAdmin(em, user.id);
      await wipeFactors(em, user);
      // Its single sign-on links go too: the subject may then match (or create) another account.
      await em.nativeDelete(UserIdentityEntity, { userId: user.id });
      await em.nativeDelete(OidcLoginCodeEntity, { userId: user.id });
      await em.nativeDelete(UserSessionEntity, { userId: user.id });
      await em.nativeDelete(LoginDeviceEntity, { userId: user.id });
      em.remove(user);
      return user;
    });
  }

  /**
   * Inside the caller's transaction. On PostgreSQL the enabled admins are locked first, so two
   * concurrent demotions cannot both see "another admin remains"; SQLite serialises writers anyway.
   */
  async #assertAnotherAdmin(em: EntityManager, exceptId: number): Promise<void> {
    const where = { role: 'admin' as const, disabled: false };
    const admins =
      dialectOf(em.getDriver()) === 'postgresql'
        ? await em.find(UserEntity, where, { lockMode: LockMode.PESSIMISTIC_WRITE })
        : await em.find(UserEntity, where);
    if (!admins.some((a) => a.id !== exceptId)) throw new AppError('USER_LAST_ADMIN');
  }
}
