import type { EntityManager } from '@mikro-orm/core';
import { AggregateSql, num } from '../../db/aggregate-sql.ts';
import type { User } from '../../db/entities/user.ts';
import { RecoveryCodeEntity, PasskeyEntity, TrustedDeviceEntity } from '../../db/entities/account-security.ts';

/** What an account has enrolled, in the reference's field names (profile and user list). */
export interface FactorSummary {
  mfaEnabled: boolean;
  twoFactorEnabled: boolean;
  twoFactorRecoveryCodesRemaining: number;
  webAuthnEnabled: boolean;
  webAuthnCredentialCount: number;
  trustedDeviceCount: number;
  emailOtpEnabled: boolean;
  smsOtpEnabled: boolean;
}

/** The switches on the user row the summary reads. */
export type FactorFlags = Pick<User, 'id' | 'totpEnabled' | 'emailOtpEnabled' | 'smsOtpEnabled'>;

/** The second-factor methods a login may use, named in AUTH_2FA_REQUIRED's `details.methods`. */
export type FactorMethod = 'totp' | 'recovery_code' | 'webauthn' | 'email_otp' | 'sms_otp';

/** Rows per user: a user holds at most ten codes, ten devices and a few passkeys, so counting loaded ids is cheap. */
async function countBy(
  em: EntityManager,
  entity: typeof RecoveryCodeEntity | typeof PasskeyEntity | typeof TrustedDeviceEntity,
  userIds: number[],
  where: Record<string, unknown>,
): Promise<Map<number, number>> {
  const rows = await em.find(
    entity as typeof PasskeyEntity,
    { userId: { $in: userIds }, ...where },
    { fields: ['userId'] },
  );
  const counts = new Map<number, number>();
  for (const row of rows) counts.set(row.userId, (counts.get(row.userId) ?? 0) + 1);
  return counts;
}

/** Summaries for many users in three grouped queries (the user list shows up to 1000). */
export async function factorSummaries(em: EntityManager, users: User[]): Promise<Map<number, FactorSummary>> {
  const ids = users.map((u) => u.id);
  const out = new Map<number, FactorSummary>();
  if (ids.length === 0) return out;
  const [codes, passkeys, devices] = await Promise.all([
    countBy(em, RecoveryCodeEntity, ids, { usedAt: null }),
    countBy(em, PasskeyEntity, ids, {}),
    countBy(em, TrustedDeviceEntity, ids, { expiresAt: { $gt: new Date() } }),
  ]);
  for (const user of users)
    out.set(user.id, summarise(user, codes.get(user.id) ?? 0, passkeys.get(user.id) ?? 0, devices.get(user.id) ?? 0));
  return out;
}

function summarise(user: FactorFlags, codes: number, passkeys: number, devices: number): FactorSummary {
  return {
    mfaEnabled: user.totpEnabled || passkeys > 0 || user.emailOtpEnabled || user.smsOtpEnabled,
    twoFactorEnabled: user.totpEnabled,
    twoFactorRecoveryCodesRemaining: user.totpEnabled ? codes : 0,
    webAuthnEnabled: passkeys > 0,
    webAuthnCredentialCount: passkeys,
    trustedDeviceCount: devices,
    emailOtpEnabled: user.emailOtpEnabled,
    smsOtpEnabled: user.smsOtpEnabled,
  };
}

/** One user's summary in one statement (the profile is read on every console page). */
export async function factorSummary(em: EntityManager, user: FactorFlags): Promise<FactorSummary> {
  const sql = new AggregateSql(em);
  const [row] = await sql.rows(
    `select
    (select count(*) from mfa_recovery_codes where user_id = ? and used_at is null) as codes,
    (select count(*) from webauthn_credentials where user_id = ?) as passkeys,
    (select count(*) from trusted_devices where user_id = ? and expires_at > ?) as devices`,
    [user.id, user.id, user.id, sql.time(new Date())],
  );
  return summarise(user, num(row?.codes), num(row?.passkeys), num(row?.devices));
}

export function factorMethods(s: FactorSummary): FactorMethod[] {
  const methods: FactorMethod[] = [];
  if (s.twoFactorEnabled) methods.push('totp');
  if (s.twoFactorEnabled && s.twoFactorRecoveryCodesRemaining > 0) methods.push('recovery_code');
  if (s.webAuthnEnabled) methods.push('webauthn');
  if (s.emailOtpEnabled) methods.push('email_otp');
  if (s.smsOtpEnabled) methods.push('sms_otp');
  return methods;
}
