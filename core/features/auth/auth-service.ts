import type { EntityManager } from '@mikro-orm/core';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import { SettingEntity } from '../../db/entities/setting.ts';
import type { TrustedDevice } from '../../db/entities/account-security.ts';
import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { hashPassword, verifyPassword, burnPasswordCheck } from '../../auth/passwords.ts';
import { revokeSessions } from '../../auth/session-revocation.ts';
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

export interface SsoLoginInput extends SecondFactorInput {
  rememberDevice?: boolean;
  trustedDeviceName?: string;
}

export interface ClientInfo {
  ip: string;
  userAgent: string;
}

export class AuthService {
  readonly #em: EntityManager;
  readonly #tokens: SessionTokens;
  readonly #limiter: LoginLimiter;
  readonly #config: Config;
  readonly #box: SecretBox;
  readonly #settings: SettingsService;
  readonly #serverAddresses: () => ServerAddress[];

  constructor({
    em,
    sessionTokens,
    loginLimiter,
    config,
    secretBox,
    settings,
    serverAddresses,
  }: {
    em: EntityManager;
    sessionTokens: SessionTokens;
    loginLimiter: LoginLimiter;
    config: Config;
    secretBox: SecretBox;
    settings: SettingsService;
    serverAddresses: () => ServerAddress[];
  }) {
    this.#em = em;
    this.#tokens = sessionTokens;
    this.#limiter = loginLimiter;
    this.#config = config;
    this.#box = secretBox;
    this.#settings = settings;
    this.#serverAddresses = serverAddresses;
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
    return this.#session(user, await factorSummary(this.#em, user), {});
  }

  /**
   * Proves the password of an account before any second step (login, sending a code, passkey
   * options). Unknown user and wrong password answer alike (and take as long); attempts are
   * limited per IP, failures per account and IP, and failures per account from anywhere slow its
   * answers down (every attempt counts as a failure until a login succeeds). See LoginLimiter.
   */
  async checkPassword(username: string, password: string, ip: string): Promise<User> {
    this.#assertLocalLogin(username);
    await this.#limiter.attempt(ip, username);
    const user = await this.#em.findOne(UserEntity, { username }, { populate: ['passwordHash'] });
    if (!user) {
      await burnPasswordCheck(password);
      throw new AppError('AUTH_INVALID_CREDENTIALS');
    }
    // A failure needs no further bookkeeping: attempt() already counted it.
    if (!(await verifyPassword(user.passwordHash, password))) throw new AppError('AUTH_INVALID_CREDENTIALS');
    // Only after the password is proven do we say the account is disabled.
    if (user.disabled) throw new AppError('AUTH_USER_DISABLED');
    return user;
  }

  /**
   * Login: the password, then the second factor when the account has one (see checkSecondFactor),
   * or a passkey alone (passwordless, when the setting allows it). A wrong or missing second
   * factor counts as a failed attempt for the limiter like a wrong password.
   */
  async login(input: LoginInput, client: ClientInfo): Promise<Session> {
    if (input.password === undefined) return this.#passwordless(input, client);
    if (!input.username) throw new AppError('INVALID_INPUT', { message: 'A username is required with a password.' });
    const user = await this.checkPassword(input.username, input.password, client.ip);
    const factors = await factorSummary(this.#em, user);
    if (!factors.mfaEnabled) {
      const gate = await this.#enrolmentGate(user);
      await this.#limiter.succeeded(client.ip, input.username);
      return this.#session(user, factors, gate);
    }
    const { method } = await checkSecondFactor(
      { em: this.#em, config: this.#config, secretBox: this.#box, serverAddresses: this.#serverAddresses },
      user,
      factors,
      input,
      client.ip,
    );
    await this.#limiter.succeeded(client.ip, input.username);
    const trustedDevice = await this.#rememberDevice(user, input, method, client);
    return this.#session(user, await factorSummary(this.#em, user), {
      secondFactor: method,
      ...(trustedDevice ? { trustedDevice } : {}),
    });
  }

  /**
   * Single sign-on (docs/account-security.md): the provider proved who `user` is. The account's
   * second factor is still asked for, as at a password login, unless the provider asserted one
   * (`amr`); the answer is the login's. `consume` runs once every check has passed, just before
   * the session is issued: it uses up the one-time code, so a retry after AUTH_2FA_REQUIRED can
   * still present it and two racing exchanges cannot both open a session.
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
      // A provider that asserted a second factor stands in for one: no enrolment is asked for either.
      const gate = proof.mfaAsserted ? {} : await this.#enrolmentGate(user);
      await consume();
      return this.#session(user, factors, gate);
    }
    await this.#limiter.attempt(client.ip, user.username);
    let method: SecondFactorMethod;
    try {
      ({ method } = await checkSecondFactor(
        { em: this.#em, config: this.#config, secretBox: this.#box, serverAddresses: this.#serverAddresses },
        user,
        factors,
        input,
        client.ip,
      ));
    } catch (err) {
      if (err instanceof AppError && err.code === 'AUTH_2FA_REQUIRED')
        throw await this.#ssoFactorsRequired(user, factors);
      throw err;
    }
    await consume();
    await this.#limiter.succeeded(client.ip, user.username);
    const trustedDevice = await this.#rememberDevice(user, input, method, client);
    return this.#session(user, await factorSummary(this.#em, user), {
      secondFactor: method,
      ...(trustedDevice ? { trustedDevice } : {}),
    });
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
    await this.#limiter.succeeded(client.ip, user.username);
    return this.#session(user, await factorSummary(this.#em, user), { secondFactor: 'passkey_passwordless' });
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
    revokeSessions(user, keepSession);
    await revokeDevicesAndPendingCodes(this.#em, user.id);
    await this.#em.flush();
    return user;
  }

  async #session(
    user: User,
    factors: FactorSummary,
    extra: Omit<Session, 'token' | 'expiresAt' | 'user' | 'factors'>,
  ): Promise<Session> {
    const { token, expiresAt } = await this.#tokens.issue({
      userId: user.id,
      role: user.role,
      tokenVersion: user.tokenVersion,
      ...(extra.enrolmentOnly ? { enrolmentOnly: true } : {}),
    });
    return { token, expiresAt, user, factors, ...extra };
  }
}

/** A readable default name for a remembered device: the browser and system from its user agent. */
function deviceName(userAgent: string): string {
  const browser = /(Firefox|Edg|Chrome|Safari)\//.exec(userAgent)?.[1]?.replace('Edg', 'Edge');
  const system = /(Windows|Mac OS X|Android|iPhone|iPad|Linux)/.exec(userAgent)?.[1]?.replace('Mac OS X', 'macOS');
  return [browser, system].filter(Boolean).join(' on ') || 'Unnamed device';
}
