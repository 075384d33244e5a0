import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import { SettingEntity } from '../../db/entities/setting.ts';
import type { TrustedDevice } from '../../db/entities/account-security.ts';
import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { hashPassword, verifyPassword, burnPasswordCheck } from '../../auth/passwords.ts';
import { revokeSessions } from '../../auth/session-revocation.ts';
import { recordSession } from '../../auth/sessions.ts';
import { renewLoginDevice } from '../../auth/login-devices.ts';
import type { LoginLanes } from '../../auth/login-lanes.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AccountLockout, AttemptClient } from './account-lockout.ts';
import type { SessionTokens } from '../../auth/jwt.ts';
import type { LoginLimiter } from '../../auth/login-limiter.ts';
import { AppError } from '../../http/app-error.ts';
import { factorSummary, factorMethods, type FactorSummary } from '../../auth/mfa/factor-summary.ts';
import { revokeDevicesAndPendingCodes } from '../../auth/mfa/factor-reset.ts';
import { issueTrustedDevice } from '../../auth/mfa/trusted-devices.ts';
import { verifyAssertion, loginOptions } from '../../auth/mfa/passkeys.ts';
import { relyingParty, type ServerAddress } from '../../auth/mfa/webauthn-party.ts';
import type { SettingsService } from '../settings/settings-service.ts';
import { checkSecondFactor, type SecondFactorInput, type SecondFactorMethod } from './second-factor.ts';

/** A settings row whose primary key makes first-admin setup happen at most once, even under races. */
const SETUP_MARKER = 'system.setup_completed_at';

export interface Session {
  token: string;
  expiresAt: Date;
  /** The token's id (`jti`), the key of its `user_sessions` row. */
  sessionId: string;
  /** A new login-device token for this client (none when it presented one of this account, which was renewed). */
  deviceToken?: string;
  user: User;
  factors: FactorSummary;
  /** How the second factor was given (absent: the account has none, or a passwordless passkey). */
  secondFactor?: SecondFactorMethod | 'passkey_passwordless';
  /** Issued by this login (`rememberDevice`): the token goes to the client once. */
  trustedDevice?: { token: string; device: TrustedDevice };
  /** Admins without a second factor while `mfa_required_for_admins` is on: when the grace period ends. */
  mfaEnrollmentDeadline?: Date;
  /** The grace period is over: this session opens the enrolment routes only. */
  enrolmentOnly?: boolean;
}

export interface LoginInput extends SecondFactorInput {
  username?: string;
  password?: string;
  rememberDevice?: boolean;
  trustedDeviceName?: string;
}

/** The client a login comes from: its address and user agent, and what may make it a trusted client. */
export type ClientInfo = AttemptClient;

export interface SsoLoginInput extends SecondFactorInput {
  rememberDevice?: boolean;
  trustedDeviceName?: string;
}

export class AuthService {
  readonly #em: EntityManager;
  readonly #tokens: SessionTokens;
  readonly #limiter: LoginLimiter;
  readonly #config: Config;
  readonly #box: SecretBox;
  readonly #settings: SettingsService;
  readonly #lockout: AccountLockout;
  readonly #lanes: LoginLanes;
  readonly #clock: Clock;
  readonly #serverAddresses: () => ServerAddress[];

  constructor(deps: {
    em: EntityManager;
    sessionTokens: SessionTokens;
    loginLimiter: LoginLimiter;
    config: Config;
    secretBox: SecretBox;
    settings: SettingsService;
    accountLockout: AccountLockout;
    loginLanes: LoginLanes;
    clock: Clock;
    serverAddresses: () => ServerAddress[];
  }) {
    this.#em = deps.em;
    this.#tokens = deps.sessionTokens;
    this.#limiter = deps.loginLimiter;
    this.#config = deps.config;
    this.#box = deps.secretBox;
    this.#settings = deps.settings;
    this.#lockout = deps.accountLockout;
    this.#lanes = deps.loginLanes;
    this.#clock = deps.clock;
    this.#serverAddresses = deps.serverAddresses;
  }

  async initialized(): Promise<boolean> {
    return (await this.#em.count(UserEntity, {})) > 0;
  }

  async setup(
    input: { username: string; password: string; displayName?: string },
    client: ClientInfo,
  ): Promise<Session> {
    if (await this.initialized()) throw new AppError('AUTH_SETUP_DISABLED');
    const passwordHash = await hashPassword(input.password);
    let user: User;
    try {
      user = await this.#em.transactional(async (em) => {
        if ((await em.count(UserEntity, {})) > 0) throw new AppError('AUTH_SETUP_DISABLED');
        em.create(SettingEntity, { key: SETUP_MARKER, value: new Date().toISOString() });
        return em.create(UserEntity, {
          username: input.username,
          passwordHash,
          displayName: input.displayName ?? input.username,
          role: 'admin',
        });
      });
    } catch (err) {
      // The losing side of a concurrent setup hits the marker's primary key.
      if (err instanceof UniqueConstraintViolationException) throw new AppError('AUTH_SETUP_DISABLED');
      throw err;
    }
    return this.openSession(user, client, {});
  }

  /**
   * Proves the password of an account before a second step that follows in another request
   * (sending a code, passkey options). Unknown user and wrong password answer alike (and take as
   * long). Limited like a login (see #attempt); a right password here clears no failures: only a
   * whole sign-in does.
   */
  async checkPassword(username: string, password: string, client: ClientInfo): Promise<User> {
    return this.#attempt(username, password, client, false, async (user) => user);
  }

  /**
   * One attempt on an account by name: the client's limits (LoginLimiter.admit: per IP, per account
   * and IP), then the password and `afterPassword` (the second factor) in the account's lane
   * (AccountLockout: serialised across masters, slowed down, capped). A name that is no account is
   * slowed down in this process's memory and answers as a wrong password would.
   */
  async #attempt<T>(
    username: string,
    password: string,
    client: ClientInfo,
    completes: boolean,
    afterPassword: (user: User) => Promise<T>,
  ): Promise<T> {
    this.#assertLocalLogin(username);
    await this.#limiter.admit(client.ip, username);
    const user = await this.#em.findOne(UserEntity, { username }, { populate: ['passwordHash'] });
    if (!user) {
      return this.#lanes.run(
        `name:${username.toLowerCase()}`,
        async () => {
          await this.#limiter.slowDown(username);
          await burnPasswordCheck(password);
          throw new AppError('AUTH_INVALID_CREDENTIALS');
        },
        { local: true },
      );
    }
    return this.#lockout.attempt(user, client, completes, async () => {
      if (!(await verifyPassword(user.passwordHash, password))) throw new AppError('AUTH_INVALID_CREDENTIALS');
      // Only after the password is proven do we say the account is disabled.
      if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
      return afterPassword(user);
    });
  }

  /**
   * Login: the password, then the second factor when the account has one (see checkSecondFactor),
   * or a passkey alone (passwordless, when the setting allows it). A wrong or missing second
   * factor counts as a failed attempt like a wrong password.
   */
  async login(input: LoginInput, client: ClientInfo): Promise<Session> {
    if (input.password === undefined) return this.#passwordless(input, client);
    if (!input.username) throw new AppError('INVALID_INPUT', { message: 'A username is required with a password.' });
    const { user, method } = await this.#attempt(input.username, input.password, client, true, async (user) => {
      const factors = await factorSummary(this.#em, user);
      if (!factors.mfaEnabled) return { user, method: undefined };
      const { method } = await checkSecondFactor(
        { em: this.#em, config: this.#config, secretBox: this.#box, serverAddresses: this.#serverAddresses },
        user,
        factors,
        input,
        client.ip,
      );
      return { user, method };
    });
    await this.#limiter.succeeded(client.ip, input.username);
    if (!method) return this.openSession(user, client, await this.#enrolmentGate(user));
    const trustedDevice = await this.#rememberDevice(user, input, method, client);
    return this.openSession(user, client, { secondFactor: method, ...(trustedDevice ? { trustedDevice } : {}) });
  }

  /**
   * Single sign-on (docs/account-security.md): the provider proved who `user` is. The account's
   * second factor is still asked for, as at a password login, unless the provider asserted one
   * (`amr`); the answer is the login's. `consume` runs once every check has passed, just before
   * the session is issued: it uses up the one-time code, so a retry after AUTH_2FA_REQUIRED can
   * still present it and two racing exchanges cannot both open a session. A code guessed here
   * counts against the account's cap like one at a password login (AccountLockout); a locked
   * account opens to its trusted clients only, as with a passwordless passkey.
   */
  async ssoLogin(
    user: User,
    proof: { mfaAsserted: boolean },
    input: SsoLoginInput,
    client: ClientInfo,
    consume: () => Promise<void>,
  ): Promise<Session> {
    if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
    const factors = await factorSummary(this.#em, user);
    if (proof.mfaAsserted || !factors.mfaEnabled) {
      await this.#lockout.refuseIfLocked(user, client);
      // A provider that asserted a second factor stands in for one: no enrolment is asked for either.
      const gate = proof.mfaAsserted ? {} : await this.#enrolmentGate(user);
      await consume();
      return this.openSession(user, client, gate);
    }
    await this.#limiter.admit(client.ip, user.username);
    const method = await this.#lockout.attempt(user, client, true, async () => {
      try {
        const checked = await checkSecondFactor(
          { em: this.#em, config: this.#config, secretBox: this.#box, serverAddresses: this.#serverAddresses },
          user,
          factors,
          input,
          client.ip,
        );
        return checked.method;
      } catch (err) {
        if (err instanceof AppError && err.code === 'AUTH_2FA_REQUIRED')
          throw await this.#ssoFactorsRequired(user, factors);
        throw err;
      }
    });
    await consume();
    await this.#limiter.succeeded(client.ip, user.username);
    const trustedDevice = await this.#rememberDevice(user, input, method, client);
    return this.openSession(user, client, { secondFactor: method, ...(trustedDevice ? { trustedDevice } : {}) });
  }

  /**
   * AUTH_2FA_REQUIRED for a single sign-on: email and SMS codes are sent only after a password, so
   * they are not offered; a passkey's options come along, as nothing else would hand them out.
   */
  async #ssoFactorsRequired(user: User, factors: FactorSummary): Promise<AppError> {
    const methods = factorMethods(factors).filter((m) => m !== 'email_otp' && m !== 'sms_otp');
    const webAuthnOptions = methods.includes('webauthn')
      ? await loginOptions(this.#em, relyingParty(this.#config, this.#serverAddresses()), user)
      : undefined;
    return new AppError('AUTH_2FA_REQUIRED', { details: { methods, ...(webAuthnOptions ? { webAuthnOptions } : {}) } });
  }

  /** `rememberDevice` after a second factor (not when a trusted device was that factor). */
  async #rememberDevice(
    user: User,
    input: { rememberDevice?: boolean; trustedDeviceName?: string },
    method: SecondFactorMethod,
    client: ClientInfo,
  ): Promise<Session['trustedDevice']> {
    if (!input.rememberDevice || method === 'trusted_device') return undefined;
    return issueTrustedDevice(this.#em, user.id, {
      name: input.trustedDeviceName ?? deviceName(client.userAgent),
      ip: client.ip,
      userAgent: client.userAgent,
    });
  }

  /**
   * `auth.localLogin: break-glass`: passwords (and passwordless passkeys) open only the named
   * accounts; everyone else signs in through a provider. Checked before the password, the same
   * for every other name, so it tells nothing about which accounts exist.
   */
  #assertLocalLogin(username: string): void {
    if (this.#config.localLogin === 'break-glass' && !this.#config.breakGlassUsers.includes(username))
      throw new AppError('AUTH_LOCAL_LOGIN_DISABLED');
  }

  async #passwordless(input: LoginInput, client: ClientInfo): Promise<Session> {
    if (!input.webAuthnAssertion || Object.keys(input.webAuthnAssertion).length === 0)
      throw new AppError('INVALID_INPUT', {
        message: 'A password, or a passkey assertion for a passwordless login, is required.',
      });
    if ((await this.#settings.values()).passkey_passwordless_login !== 'true')
      throw new AppError('AUTH_PASSWORDLESS_DISABLED');
    await this.#limiter.attempt(client.ip, input.username || undefined);
    const passkey = await verifyAssertion(
      this.#em,
      relyingParty(this.#config, this.#serverAddresses()),
      null,
      input.webAuthnAssertion,
    );
    const user = passkey ? await this.#em.findOne(UserEntity, { id: passkey.userId }) : null;
    if (!user || (input.username && input.username !== user.username)) throw new AppError('AUTH_2FA_INVALID');
    this.#assertLocalLogin(user.username);
    if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
    // A signature cannot be guessed, so nothing is counted; a locked account still opens only to its trusted clients.
    await this.#lockout.refuseIfLocked(user, client);
    await this.#limiter.succeeded(client.ip, user.username);
    return this.openSession(user, client, { secondFactor: 'passkey_passwordless' });
  }

  /**
   * `mfa_required_for_admins`: an admin without a second factor gets a grace period, counted
   * from the first login that told them; past it, sessions open the enrolment routes only.
   */
  async #enrolmentGate(user: User): Promise<Pick<Session, 'mfaEnrollmentDeadline' | 'enrolmentOnly'>> {
    if (user.role !== 'admin') return {};
    const settings = await this.#settings.values();
    if (settings.mfa_required_for_admins !== 'true') return {};
    if (!user.mfaGraceStartedAt) {
      user.mfaGraceStartedAt = new Date();
      await this.#em.flush();
    }
    const deadline = new Date(
      user.mfaGraceStartedAt.getTime() + Number(settings.mfa_enrollment_grace_days) * 86_400_000,
    );
    return deadline.getTime() > Date.now()
      ? { mfaEnrollmentDeadline: deadline }
      : { mfaEnrollmentDeadline: deadline, enrolmentOnly: true };
  }

  /**
   * Changes the caller's password and revokes every other session of theirs, every trusted
   * device and every pending code. The calling session (`keepSession`, its token id) stays open,
   * as the reference's console expects: it keeps its token after the change.
   */
  async changePassword(
    userId: number,
    keepSession: string | undefined,
    oldPassword: string,
    newPassword: string,
  ): Promise<User> {
    const user = await this.#em.findOne(UserEntity, { id: userId }, { populate: ['passwordHash'] });
    if (!user) throw new AppError('AUTH_UNAUTHORIZED');
    if (!(await verifyPassword(user.passwordHash, oldPassword))) throw new AppError('AUTH_WRONG_PASSWORD');
    user.passwordHash = await hashPassword(newPassword);
    await revokeSessions(this.#em, user, keepSession);
    await revokeDevicesAndPendingCodes(this.#em, user.id);
    await this.#em.flush();
    return user;
  }

  /**
   * The end of every successful sign-in (setup, login, and any later way of signing in): a new
   * session token and its `user_sessions` row, and the client's login-device token renewed or
   * issued (it makes the client a trusted client of the account: AccountLockout). Routes answer
   * it with `answerLogin` (auth-views.ts).
   */
  async openSession(
    user: User,
    client: ClientInfo,
    extra: Omit<Session, 'token' | 'expiresAt' | 'sessionId' | 'user' | 'factors' | 'deviceToken'>,
  ): Promise<Session> {
    const { token, expiresAt, sessionId } = await this.#tokens.issue({
      userId: user.id,
      role: user.role,
      tokenVersion: user.tokenVersion,
      ...(extra.enrolmentOnly ? { enrolmentOnly: true } : {}),
    });
    const now = this.#clock.now();
    await recordSession(this.#em, {
      tokenId: sessionId,
      userId: user.id,
      userAgent: client.userAgent,
      ip: client.ip,
      expiresAt,
      now,
    });
    const device = await renewLoginDevice(this.#em, user.id, client.deviceToken, now);
    const factors = await factorSummary(this.#em, user);
    return {
      token,
      expiresAt,
      sessionId,
      user,
      factors,
      ...(device.token ? { deviceToken: device.token } : {}),
      ...extra,
    };
  }
}

/** A readable default name for a remembered device: the browser and system from its user agent. */
export function deviceName(userAgent: string): string {
  const browser = /(Firefox|Edg|Chrome|Safari)\//.exec(userAgent)?.[1]?.replace('Edg', 'Edge');
  const system = /(Windows|Mac OS X|Android|iPhone|iPad|Linux)/.exec(userAgent)?.[1]?.replace('Mac OS X', 'macOS');
  return [browser, system].filter(Boolean).join(' on ') || 'Unnamed device';
}
