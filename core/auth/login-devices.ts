import type { EntityManager } from '@mikro-orm/core';
import { LoginDeviceEntity, type LoginDevice } from '../db/entities/login.ts';
import { TrustedDeviceEntity } from '../db/entities/account-security.ts';
import { generateToken, hashToken, looksLike } from '../security/tokens.ts';

export const LOGIN_DEVICE_COOKIE = 'backplane_login_device';
/** A client that has not signed in for this long is a stranger again; every sign-in renews it. */
export const LOGIN_DEVICE_DAYS = 90;
/** Per account, the most recent clients kept (one person's browsers, phones and scripts). */
export const MAX_LOGIN_DEVICES = 20;

/**
 * OWASP's "device cookie": every successful sign-in hands its client a random token (as a cookie
 * and in the login answer, for clients without cookies), bound to the account by its row; only its
 * SHA-256 is stored. Presented again, it makes the client a trusted client of that account: it may
 * sign in while the account is locked against everyone else (core/features/auth/account-lockout.ts).
 */

/** The credentials a client presents that may make it a trusted client of an account. */
export interface ClientCredentials {
  /** The login-device token (cookie `backplane_login_device`, or `deviceToken`). */
  deviceToken?: string;
  /** A trusted-device token of the second-factor feature (core/auth/mfa/trusted-devices.ts). */
  trustedDeviceToken?: string;
}

/** A trusted client of an account: the row of the credential that proves it. */
export type TrustedClient = { kind: 'device'; id: number } | { kind: 'trusted_device'; id: number };

/** The trusted client these credentials prove for this account, if any (unexpired, bound to it). */
export async function trustedClientOf(
  em: EntityManager,
  userId: number,
  credentials: ClientCredentials,
  now: Date,
): Promise<TrustedClient | undefined> {
  const { deviceToken, trustedDeviceToken } = credentials;
  if (deviceToken && looksLike('loginDevice', deviceToken)) {
    const device = await em.findOne(
      LoginDeviceEntity,
      { tokenHash: hashToken(deviceToken), userId, expiresAt: { $gt: now } },
      { fields: ['id'] },
    );
    if (device) return { kind: 'device', id: device.id };
  }
  if (trustedDeviceToken && looksLike('trustedDevice', trustedDeviceToken)) {
    const device = await em.findOne(
      TrustedDeviceEntity,
      { tokenHash: hashToken(trustedDeviceToken), userId, expiresAt: { $gt: now } },
      { fields: ['id'] },
    );
    if (device) return { kind: 'trusted_device', id: device.id };
  }
  return undefined;
}

/**
 * After a successful sign-in: the client's device token renewed when it presented one of this
 * account, else a new one (returned once; the oldest beyond MAX_LOGIN_DEVICES dropped).
 */
export async function renewLoginDevice(
  em: EntityManager,
  userId: number,
  deviceToken: string | undefined,
  now: Date,
): Promise<{ token?: string; device: LoginDevice }> {
  const expiresAt = new Date(now.getTime() + LOGIN_DEVICE_DAYS * 86_400_000);
  if (deviceToken && looksLike('loginDevice', deviceToken)) {
    const known = await em.findOne(LoginDeviceEntity, {
      tokenHash: hashToken(deviceToken),
      userId,
      expiresAt: { $gt: now },
    });
    if (known) {
      known.lastUsedAt = now;
      known.expiresAt = expiresAt;
      known.failures = 0;
      await em.flush();
      return { device: known };
    }
  }
  await em.nativeDelete(LoginDeviceEntity, { userId, expiresAt: { $lte: now } });
  const kept = await em.find(
    LoginDeviceEntity,
    { userId },
    { orderBy: { lastUsedAt: 'desc', id: 'desc' }, fields: ['id'] },
  );
  const dropped = kept.slice(MAX_LOGIN_DEVICES - 1).map((d) => d.id);
  if (dropped.length > 0) await em.nativeDelete(LoginDeviceEntity, { id: { $in: dropped } });
  const token = generateToken('loginDevice');
  const device = em.create(LoginDeviceEntity, { userId, tokenHash: hashToken(token), lastUsedAt: now, expiresAt });
  await em.flush();
  return { token, device };
}
