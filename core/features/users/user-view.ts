import { Type, type Static } from 'typebox';
import type { User } from '../../db/entities/user.ts';
import type { FactorSummary } from '../../auth/mfa/factor-summary.ts';

export const UserView = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  displayName: Type.String(),
  email: Type.String(),
  phone: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('operator'), Type.Literal('viewer')]),
  disabled: Type.Boolean(),
  // The reference's account-security summary, read by its console's profile and user pages.
  mfaEnabled: Type.Boolean(),
  twoFactorEnabled: Type.Boolean(),
  twoFactorRecoveryCodesRemaining: Type.Integer(),
  webAuthnEnabled: Type.Boolean(),
  webAuthnCredentialCount: Type.Integer(),
  trustedDeviceCount: Type.Integer(),
  emailOtpEnabled: Type.Boolean(),
  smsOtpEnabled: Type.Boolean(),
  /** Failed sign-ins in a row (docs/account-security.md#the-cap-on-failed-sign-ins). */
  failedLoginCount: Type.Integer(),
  /** While set, only the account's trusted clients may sign in; `POST /api/users/:id/unlock` clears it. */
  lockedUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type UserView = Static<typeof UserView>;

/** The only shape a user leaves the server in: no hash, no token version. */
export type UserFields = Pick<
  User,
  | 'id'
  | 'username'
  | 'displayName'
  | 'email'
  | 'phone'
  | 'role'
  | 'disabled'
  | 'failedLoginCount'
  | 'lockedUntil'
  | 'createdAt'
  | 'updatedAt'
>;

export function toUserView(user: UserFields, factors: FactorSummary): UserView {
  return {
    id: user.id,
    username: user.username,
    displayName: user.displayName,
    email: user.email,
    phone: user.phone,
    role: user.role,
    disabled: user.disabled,
    ...factors,
    failedLoginCount: user.failedLoginCount,
    // A lock whose cool-down is over is lifted by the next attempt; it no longer holds anyone back.
    lockedUntil: user.lockedUntil && user.lockedUntil > new Date() ? user.lockedUntil.toISOString() : null,
    createdAt: user.createdAt.toISOString(),
    updatedAt: user.updatedAt.toISOString(),
  };
}
