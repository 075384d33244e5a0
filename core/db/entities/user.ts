import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ROLES = ['admin', 'operator', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const UserEntity = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.integer().primary().autoincrement(),
    username: p.string().length(64).unique(),
    passwordHash: p.string().length(255).lazy(),
    displayName: p.string().length(128),
    email: p.string().length(255).default(''),
    phone: p.string().length(64).default(''),
    role: p.enum(ROLES as unknown as Role[]).default('viewer'),
    disabled: p.boolean().default(false),
    /** Bumped on password, role or enabled-state changes: every JWT carrying an older value stops working. */
    tokenVersion: p.integer().default(1),
    /** The one session (JWT id) that survived the last bump: the caller's own when they changed their own password. */
    keptSessionId: p.string().length(32).nullable(),
    /** The TOTP secret, sealed; set by 2FA setup, in force once `totpEnabled`. */
    totpSecret: p.text().nullable().lazy(),
    totpEnabled: p.boolean().default(false),
    /** The time step of the last accepted TOTP code: a code is accepted once, never replayed in its window. */
    totpLastStep: p.bigint('number').nullable(),
    emailOtpEnabled: p.boolean().default(false),
    smsOtpEnabled: p.boolean().default(false),
    /** When an admin without a second factor was first told to enrol one (`mfa_required_for_admins`). */
    mfaGraceStartedAt: p.datetime().nullable(),
    /** Failed sign-in attempts in a row, counted on every master (docs/account-security.md#the-cap-on-failed-sign-ins); a full sign-in clears it. */
    failedLoginCount: p.integer().default(0),
    /** Set when `failedLoginCount` reached the cap: until then only the account's trusted clients may sign in. */
    lockedUntil: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type User = InferEntity<typeof UserEntity>;
