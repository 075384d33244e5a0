import type { EntityManager } from '@mikro-orm/core';
import type { User } from '../../db/entities/user.ts';
import type { TrustedDevice } from '../../db/entities/account-security.ts';
import type { Config } from '../../config/config.ts';
import type { SecretBox } from '../../security/secret-box.ts';
import { AppError } from '../../http/app-error.ts';
import { type FactorSummary, factorMethods } from '../../auth/mfa/factor-summary.ts';
import { useTrustedDevice } from '../../auth/mfa/trusted-devices.ts';
import { verifyAssertion } from '../../auth/mfa/passkeys.ts';
import { relyingParty, type ServerAddress } from '../../auth/mfa/webauthn-party.ts';
import { totpStep } from '../../auth/mfa/totp.ts';
import { consumeRecoveryCode } from '../../auth/mfa/recovery-codes.ts';
import { consumeLoginOtp } from '../../auth/mfa/login-otp.ts';
import { readTotpSecret, recordTotpStep } from './totp-secret.ts';

export type SecondFactorMethod = 'trusted_device' | 'webauthn' | 'totp' | 'recovery_code' | 'otp';

export interface SecondFactorInput {
  twoFactorCode?: string;
  webAuthnAssertion?: Record<string, unknown> | null;
  trustedDeviceToken?: string;
}

/**
 * The second step of a login, in the reference's order: a trusted device, else a passkey
 * assertion, else `twoFactorCode` tried as a TOTP code, a recovery code, then the pending
 * email/SMS code. Missing: 401 AUTH_2FA_REQUIRED with the methods the account can use; wrong:
 * 401 AUTH_2FA_INVALID. Returns how the factor was given, and the trusted device if one was used.
 */
export async function checkSecondFactor(
  deps: { em: EntityManager; config: Config; secretBox: SecretBox; serverAddresses: () => ServerAddress[] },
  user: User,
  factors: FactorSummary,
  input: SecondFactorInput,
  ip: string,
): Promise<{ method: SecondFactorMethod; device?: TrustedDevice }> {
  const { em } = deps;
  if (input.trustedDeviceToken) {
    const device = await useTrustedDevice(em, user.id, input.trustedDeviceToken, ip);
    if (device) return { method: 'trusted_device', device };
  }
  if (input.webAuthnAssertion && Object.keys(input.webAuthnAssertion).length > 0) {
    if (
      factors.webAuthnEnabled &&
      (await verifyAssertion(em, relyingParty(deps.config, deps.serverAddresses()), user, input.webAuthnAssertion))
    )
      return { method: 'webauthn' };
    throw new AppError('AUTH_2FA_INVALID');
  }
  const code = input.twoFactorCode?.trim() ?? '';
  if (code === '') throw new AppError('AUTH_2FA_REQUIRED', { details: { methods: factorMethods(factors) } });
  if (user.totpEnabled) {
    const secret = await readTotpSecret(em, deps.secretBox, user);
    const step = secret ? await totpStep(secret, code, user.totpLastStep ?? null) : undefined;
    if (step !== undefined && (await recordTotpStep(em, user, step))) return { method: 'totp' };
    if (await consumeRecoveryCode(em, user.id, code)) return { method: 'recovery_code' };
  }
  if ((user.emailOtpEnabled || user.smsOtpEnabled) && (await consumeLoginOtp(em, user, code))) return { method: 'otp' };
  throw new AppError('AUTH_2FA_INVALID');
}
