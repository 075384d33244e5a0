import type { EntityManager } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import {
  PasskeyEntity,
  TrustedDeviceEntity,
  LoginOtpEntity,
  RecoveryCodeEntity,
  type Passkey,
  type TrustedDevice,
} from '../../db/entities/account-security.ts';
import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import type { LoginLimiter } from '../../auth/login-limiter.ts';
import { verifyPassword } from '../../auth/passwords.ts';
import { AppError } from '../../http/app-error.ts';
import type { NotificationSender } from '../../notifications/notification-sender.ts';
import { factorSummary } from '../../auth/mfa/factor-summary.ts';
import { revokeDevicesAndPendingCodes, wipeFactors } from '../../auth/mfa/factor-reset.ts';
import { newTotpSecret, totpUri, qrCodeDataUrl, totpStep } from '../../auth/mfa/totp.ts';
import { issueRecoveryCodes } from '../../auth/mfa/recovery-codes.ts';
import { sendLoginOtp, type OtpChannel } from '../../auth/mfa/login-otp.ts';
import { registrationOptions, finishRegistration, loginOptions } from '../../auth/mfa/passkeys.ts';
import { relyingParty, type ServerAddress } from '../../auth/mfa/webauthn-party.ts';
import { listTrustedDevices } from '../../auth/mfa/trusted-devices.ts';
import { sealTotpSecret, readTotpSecret, recordTotpStep } from './totp-secret.ts';
import type { AuthService, ClientInfo } from './auth-service.ts';
import type { AccountLockout } from './account-lockout.ts';

const ISSUER = 'Backplane';

/**
 * Enrolling and removing second factors, for the signed-in user. Every change asks for the
 * current password (a session left open on a shared screen cannot swap the factors); removing
 * TOTP or making new recovery codes asks for a TOTP code as well, as in the reference.
 */
export class AccountSecurityService {
  readonly #em: EntityManager;
  readonly #box: SecretBox;
  readonly #config: Config;
  readonly #limiter: LoginLimiter;
  readonly #sender: NotificationSender;
  readonly #auth: AuthService;
  readonly #lockout: AccountLockout;
  readonly #serverAddresses: () => ServerAddress[];

  constructor(deps: {
    em: EntityManager;
    secretBox: SecretBox;
    config: Config;
    loginLimiter: LoginLimiter;
    notificationSender: NotificationSender;
    auth: AuthService;
    accountLockout: AccountLockout;
    serverAddresses: () => ServerAddress[];
  }) {
    this.#em = deps.em;
    this.#box = deps.secretBox;
    this.#config = deps.config;
    this.#limiter = deps.loginLimiter;
    this.#sender = deps.notificationSender;
    this.#auth = deps.auth;
    this.#lockout = deps.accountLockout;
    this.#serverAddresses = deps.serverAddresses;
  }

  async user(userId: number): Promise<User> {
    const user = await this.#em.findOne(UserEntity, { id: userId });
    if (!user) throw new AppError('AUTH_UNAUTHORIZED');
    return user;
  }

  /**
   * The current password, checked under the login limits (a stolen session must not become a
   * password oracle): a wrong one also counts against the account's cap of failed sign-ins.
   */
  async #requirePassword(user: User, password: string, ip: string): Promise<void> {
    await this.#limiter.attempt(ip, user.username);
    const row = await this.#em.findOne(UserEntity, { id: user.id }, { populate: ['passwordHash'], refresh: false });
    if (!row || !(await verifyPassword(row.passwordHash, password))) {
      await this.#lockout.countFailure(user, { ip, userAgent: '' });
      throw new AppError('AUTH_WRONG_PASSWORD');
    }
    await this.#limiter.succeeded(ip, user.username);
  }

  async #requireTotp(user: User, code: string): Promise<void> {
    const secret = await readTotpSecret(this.#em, this.#box, user);
    const step = secret ? await totpStep(secret, code, user.totpLastStep ?? null) : undefined;
    if (step === undefined || !(await recordTotpStep(this.#em, user, step))) throw new AppError('AUTH_2FA_CODE_WRONG');
  }

  /** After a factor is removed: with none left, remembered devices and pending codes go too. */
  async #afterRemoval(user: User): Promise<void> {
    if (!(await factorSummary(this.#em, user)).mfaEnabled) await revokeDevicesAndPendingCodes(this.#em, user.id);
  }

  // --- TOTP and recovery codes -------------------------------------------------------------

  async prepareTotp(userId: number, currentPassword: string, ip: string) {
    const user = await this.user(userId);
    if (user.totpEnabled) throw new AppError('AUTH_2FA_ALREADY_ENABLED');
    await this.#requirePassword(user, currentPassword, ip);
    const secret = await newTotpSecret();
    user.totpSecret = sealTotpSecret(this.#box, user.id, secret);
    user.totpLastStep = null;
    await this.#em.flush();
    const otpAuthUrl = await totpUri(secret, user.username, ISSUER);
    return {
      secret,
      otpAuthUrl,
      qrCodeDataUrl: await qrCodeDataUrl(otpAuthUrl),
      twoFactorEnabled: false,
      twoFactorConfirmed: false,
    };
  }

  async enableTotp(userId: number, code: string): Promise<{ user: User; recoveryCodes: string[] }> {
    const user = await this.user(userId);
    if (user.totpEnabled) throw new AppError('AUTH_2FA_ALREADY_ENABLED');
    if (!(await readTotpSecret(this.#em, this.#box, user))) throw new AppError('AUTH_2FA_NOT_PREPARED');
    await this.#requireTotp(user, code);
    const recoveryCodes = await issueRecoveryCodes(this.#em, user.id);
    user.totpEnabled = true;
    await this.#em.flush();
    return { user, recoveryCodes };
  }

  async disableTotp(userId: number, currentPassword: string, code: string, ip: string): Promise<User> {
    const user = await this.user(userId);
    if (!user.totpEnabled) throw new AppError('AUTH_2FA_NOT_ENABLED');
    await this.#requirePassword(user, currentPassword, ip);
    await this.#requireTotp(user, code);
    user.totpEnabled = false;
    user.totpSecret = null;
    user.totpLastStep = null;
    await this.#em.flush();
    await this.#em.nativeDelete(RecoveryCodeEntity, { userId: user.id });
    await this.#afterRemoval(user);
    return user;
  }

  async regenerateRecoveryCodes(
    userId: number,
    currentPassword: string,
    code: string,
    ip: string,
  ): Promise<{ user: User; recoveryCodes: string[] }> {
    const user = await this.user(userId);
    if (!user.totpEnabled) throw new AppError('AUTH_2FA_NOT_ENABLED');
    await this.#requirePassword(user, currentPassword, ip);
    await this.#requireTotp(user, code);
    return { user, recoveryCodes: await issueRecoveryCodes(this.#em, user.id) };
  }

  // --- email and SMS codes -----------------------------------------------------------------

  /**
   * Turns email or SMS login codes on or off, optionally setting the address. Turning one on
   * needs an address and a notification channel that can reach it: a code that cannot be
   * delivered would lock the account out. A new address withdraws a pending code.
   */
  async configureOtp(
    userId: number,
    input: { currentPassword: string; channel: OtpChannel; enabled: boolean; email?: string; phone?: string },
    ip: string,
  ): Promise<User> {
    const user = await this.user(userId);
    await this.#requirePassword(user, input.currentPassword, ip);
    const field = input.channel === 'email' ? 'email' : 'phone';
    const given = (input.channel === 'email' ? input.email : input.phone)?.trim();
    const changed = given !== undefined && given !== '' && given !== user[field];
    if (changed) user[field] = given;
    if (input.enabled) {
      if (!user[field]) throw new AppError(input.channel === 'email' ? 'AUTH_EMAIL_REQUIRED' : 'AUTH_PHONE_REQUIRED');
      if (!(await this.#sender.canReach(input.channel === 'email' ? 'email' : 'phone')))
        throw new AppError('AUTH_OTP_NO_CHANNEL', { details: { channel: input.channel } });
    }
    if (input.channel === 'email') user.emailOtpEnabled = input.enabled;
    else user.smsOtpEnabled = input.enabled;
    await this.#em.flush();
    if (changed || !input.enabled) await this.#em.nativeDelete(LoginOtpEntity, { userId: user.id });
    if (!input.enabled) await this.#afterRemoval(user);
    return user;
  }

  /** Public: sends a login code after the password is proven (the first half of an OTP login). */
  async sendOtp(input: { username: string; password: string; channel: OtpChannel }, client: ClientInfo): Promise<User> {
    const user = await this.#auth.checkPassword(input.username, input.password, client);
    const summary = await factorSummary(this.#em, user);
    if (!summary.mfaEnabled) throw new AppError('AUTH_MFA_NOT_ENABLED');
    if (input.channel === 'email' && !user.emailOtpEnabled) throw new AppError('AUTH_EMAIL_OTP_DISABLED');
    if (input.channel === 'sms' && !user.smsOtpEnabled) throw new AppError('AUTH_SMS_OTP_DISABLED');
    await sendLoginOtp(this.#em, this.#sender, user, input.channel);
    return user;
  }

  // --- passkeys ----------------------------------------------------------------------------

  async passkeyRegistrationOptions(userId: number, currentPassword: string, ip: string) {
    const rp = relyingParty(this.#config, this.#serverAddresses());
    const user = await this.user(userId);
    await this.#requirePassword(user, currentPassword, ip);
    return registrationOptions(this.#em, rp, user);
  }

  async finishPasskeyRegistration(
    userId: number,
    credential: Record<string, unknown>,
    name: string | undefined,
  ): Promise<{ user: User; passkey: Passkey }> {
    const user = await this.user(userId);
    const passkey = await finishRegistration(
      this.#em,
      relyingParty(this.#config, this.#serverAddresses()),
      user,
      credential,
      name ?? '',
    );
    return { user, passkey };
  }

  listPasskeys(userId: number): Promise<Passkey[]> {
    return this.#em.find(PasskeyEntity, { userId }, { orderBy: { id: 'asc' } });
  }

  async deletePasskey(
    userId: number,
    id: number,
    currentPassword: string,
    ip: string,
  ): Promise<{ user: User; passkey: Passkey }> {
    const user = await this.user(userId);
    const passkey = await this.#em.findOne(PasskeyEntity, { id, userId });
    if (!passkey) throw new AppError('AUTH_WEBAUTHN_NOT_FOUND');
    await this.#requirePassword(user, currentPassword, ip);
    await this.#em.nativeDelete(PasskeyEntity, { id: passkey.id });
    await this.#afterRemoval(user);
    return { user, passkey };
  }

  /**
   * Public: options for a passkey login. With a username and password, the account's passkeys
   * as its second factor; with neither, a passwordless login (when the setting allows it).
   */
  async passkeyLoginOptions(
    input: { username?: string; password?: string },
    client: ClientInfo,
    passwordless: boolean,
  ) {
    const rp = relyingParty(this.#config, this.#serverAddresses());
    if (input.password === undefined) {
      if (!passwordless) throw new AppError('AUTH_PASSWORDLESS_DISABLED');
      await this.#limiter.attempt(client.ip, undefined);
      return loginOptions(this.#em, rp, null);
    }
    const user = await this.#auth.checkPassword(input.username ?? '', input.password, client);
    if (!(await factorSummary(this.#em, user)).webAuthnEnabled)
      throw new AppError('AUTH_MFA_NOT_ENABLED', { message: 'This account has no passkey.' });
    return loginOptions(this.#em, rp, user);
  }

  // --- trusted devices ---------------------------------------------------------------------

  listTrustedDevices(userId: number): Promise<TrustedDevice[]> {
    return listTrustedDevices(this.#em, userId);
  }

  /** Revokes one device. The password is asked when given (the reference's console sends it) and checked then. */
  async revokeTrustedDevice(
    userId: number,
    id: number,
    currentPassword: string | undefined,
    ip: string,
  ): Promise<TrustedDevice> {
    const user = await this.user(userId);
    const device = await this.#em.findOne(TrustedDeviceEntity, { id, userId });
    if (!device) throw new AppError('AUTH_TRUSTED_DEVICE_NOT_FOUND');
    if (currentPassword !== undefined) await this.#requirePassword(user, currentPassword, ip);
    await this.#em.nativeDelete(TrustedDeviceEntity, { id: device.id });
    return device;
  }

  // --- admin -------------------------------------------------------------------------------

  /** An admin wipes another user's second factors (lost phone); never their own. */
  async adminReset(targetId: number, actingUserId: number | null): Promise<User> {
    if (actingUserId === targetId) throw new AppError('USER_SELF_2FA_RESET');
    const user = await this.#em.findOne(UserEntity, { id: targetId });
    if (!user) throw new AppError('USER_NOT_FOUND');
    await wipeFactors(this.#em, user);
    user.mfaGraceStartedAt = null;
    await this.#em.flush();
    return user;
  }
}
