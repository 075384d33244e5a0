import type { EntityManager } from '@mikro-orm/core';
import type { User } from '../../db/entities/user.ts';
import {
  RecoveryCodeEntity,
  LoginOtpEntity,
  PasskeyEntity,
  WebAuthnChallengeEntity,
  TrustedDeviceEntity,
} from '../../db/entities/account-security.ts';

/**
 * After a password change, or when the last factor is turned off: every remembered device
 * and every pending code or challenge stops working. Flushes nothing of the user row itself.
 */
export async function revokeDevicesAndPendingCodes(em: EntityManager, userId: number): Promise<void> {
  await em.nativeDelete(TrustedDeviceEntity, { userId });
  await em.nativeDelete(LoginOtpEntity, { userId });
  await em.nativeDelete(WebAuthnChallengeEntity, { userId });
}

/** Every second factor of the account gone (admin reset, user deletion); the caller flushes the user row. */
export async function wipeFactors(em: EntityManager, user: User): Promise<void> {
  await revokeDevicesAndPendingCodes(em, user.id);
  await em.nativeDelete(RecoveryCodeEntity, { userId: user.id });
  await em.nativeDelete(PasskeyEntity, { userId: user.id });
  user.totpSecret = null;
  user.totpEnabled = false;
  user.totpLastStep = null;
  user.emailOtpEnabled = false;
  user.smsOtpEnabled = false;
}
