import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The second factors of an account, each kind in its own table so that a count, a revocation or
 * an admin reset is one indexed query (the reference keeps them as JSON blobs on the user row).
 * The TOTP secret and the switches of email/SMS codes live on the user row itself.
 */

/** One of the ten single-use recovery codes issued when TOTP is enabled; only its argon2id hash is kept. */
export const RecoveryCodeEntity = defineEntity({
  name: 'RecoveryCode',
  tableName: 'mfa_recovery_codes',
  indexes: [{ name: 'mfa_recovery_codes_user_index', properties: ['userId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    codeHash: p.string().length(255),
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type RecoveryCode = InferEntity<typeof RecoveryCodeEntity>;

/** The pending email or SMS login code of a user (at most one: a new code replaces the old). */
export const LoginOtpEntity = defineEntity({
  name: 'LoginOtp',
  tableName: 'mfa_login_otps',
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer().unique(),
    channel: p.string().length(8),
    codeHash: p.string().length(255),
    /** Wrong codes tried against this one; at the limit it is dropped. */
    failures: p.integer().default(0),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type LoginOtp = InferEntity<typeof LoginOtpEntity>;

/** A registered passkey (WebAuthn credential). */
export const PasskeyEntity = defineEntity({
  name: 'Passkey',
  tableName: 'webauthn_credentials',
  indexes: [{ name: 'webauthn_credentials_user_index', properties: ['userId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    /** The authenticator's credential id, base64url. */
    credentialId: p.string().length(1024).unique(),
    /** The COSE public key, base64url. */
    publicKey: p.text(),
    signCount: p.bigint('number').default(0),
    /** JSON array of the transports the browser reported (usb, internal, hybrid...). */
    transports: p.string().length(255).default('[]'),
    name: p.string().length(128),
    /** Whether the authenticator verified the user (PIN, biometrics) at registration. */
    userVerified: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
  },
});
export type Passkey = InferEntity<typeof PasskeyEntity>;

/** A WebAuthn challenge handed out and not yet answered: single use, five minutes. */
export const WebAuthnChallengeEntity = defineEntity({
  name: 'WebAuthnChallenge',
  tableName: 'webauthn_challenges',
  properties: {
    id: p.integer().primary().autoincrement(),
    challenge: p.string().length(128).unique(),
    /** `register` or `login`. */
    purpose: p.string().length(16),
    /** The account it was issued for; null for a passwordless login, where the passkey names the account. */
    userId: p.integer().nullable(),
    expiresAt: p.datetime(),
  },
});
export type WebAuthnChallenge = InferEntity<typeof WebAuthnChallengeEntity>;

/** A browser or client that may skip the second factor for 30 days; only the SHA-256 of its token is kept. */
export const TrustedDeviceEntity = defineEntity({
  name: 'TrustedDevice',
  tableName: 'trusted_devices',
  indexes: [{ name: 'trusted_devices_user_index', properties: ['userId'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    userId: p.integer(),
    tokenHash: p.string().length(64).unique(),
    name: p.string().length(128),
    lastIp: p.string().length(64).default(''),
    userAgent: p.string().length(255).default(''),
    /** Failed sign-ins from this device in a row: at the cap the device is revoked (it also lets its holder past a lockout). */
    failures: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type TrustedDevice = InferEntity<typeof TrustedDeviceEntity>;
