/**
 * What the account page may offer and what follows an enrolment (docs/account-security.md).
 * An enrolment-only session (`mfaEnrollmentRequired`, after the admins' grace period) opens only
 * the profile and the enrolment routes; the token keeps that scope even after a factor is enrolled,
 * so the admin must sign in again, with the new factor, for a full session. Pure: unit-tested.
 */
export interface SessionFacts {
  mfaEnrollmentRequired?: boolean | undefined;
  mfaEnrollmentDeadline?: string | undefined;
}

export type Card = 'profile' | 'password' | 'totp' | 'otp' | 'passkeys' | 'devices' | 'sessions';

export function accountCards(s: SessionFacts): Card[] {
  return s.mfaEnrollmentRequired
    ? ['profile', 'totp', 'otp', 'passkeys']
    : ['profile', 'password', 'totp', 'otp', 'passkeys', 'devices', 'sessions'];
}

/** `required`: nothing else opens until a factor is enrolled; `deadline`: enrol before the given time; null: nothing to say. */
export function enrolmentNotice(
  s: SessionFacts,
  mfaEnabled: boolean | undefined,
): { kind: 'required' } | { kind: 'deadline'; deadline: string } | null {
  if (mfaEnabled) return null;
  if (s.mfaEnrollmentRequired) return { kind: 'required' };
  if (s.mfaEnrollmentDeadline) return { kind: 'deadline', deadline: s.mfaEnrollmentDeadline };
  return null;
}

/**
 * After a factor was enrolled: an enrolment-only session signs out (its token stays limited),
 * a full session keeps going with the profile refreshed and the deadline notice dropped.
 */
export function afterEnrolment(s: SessionFacts, mfaEnabled: boolean): 'sign-in-again' | 'refresh' {
  return s.mfaEnrollmentRequired && mfaEnabled ? 'sign-in-again' : 'refresh';
}

/** The recovery codes as a text file to keep. */
export function recoveryCodesFile(codes: readonly string[], username: string, issuedAt: string): string {
  return [
    `Backplane recovery codes for ${username}`,
    `Issued ${issuedAt}. Each code works once.`,
    '',
    ...codes,
    '',
  ].join('\n');
}
