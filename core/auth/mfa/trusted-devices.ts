import type { EntityManager } from '@mikro-orm/core';
import { TrustedDeviceEntity, type TrustedDevice } from '../../db/entities/account-security.ts';
import { generateToken, hashToken, looksLike } from '../../security/tokens.ts';

export const TRUSTED_DEVICE_DAYS = 30;
export const MAX_TRUSTED_DEVICES = 10;
export const TRUSTED_DEVICE_COOKIE = 'backplane_trusted_device';

/**
 * Devices that may skip the second factor for 30 days after one was given. The token is random
 * (256 bits) and only its SHA-256 is stored; a user keeps at most ten, the oldest dropped.
 */
export async function issueTrustedDevice(
  em: EntityManager,
  userId: number,
  input: { name: string; ip: string; userAgent: string },
): Promise<{ token: string; device: TrustedDevice }> {
  const token = generateToken('trustedDevice');
  const now = new Date();
  await em.nativeDelete(TrustedDeviceEntity, { userId, expiresAt: { $lte: now } });
  const kept = await em.find(TrustedDeviceEntity, { userId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  const dropped = kept.slice(MAX_TRUSTED_DEVICES - 1).map((d) => d.id);
  if (dropped.length > 0) await em.nativeDelete(TrustedDeviceEntity, { id: { $in: dropped } });
  const device = em.create(TrustedDeviceEntity, {
    userId,
    tokenHash: hashToken(token),
    name: input.name.slice(0, 128) || 'Unnamed device',
    lastIp: input.ip.slice(0, 64),
    userAgent: input.userAgent.slice(0, 255),
    lastUsedAt: now,
    expiresAt: new Date(now.getTime() + TRUSTED_DEVICE_DAYS * 86_400_000),
  });
  await em.flush();
  return { token, device };
}

/** The user's unexpired device holding this token, its last use recorded; undefined otherwise. */
export async function useTrustedDevice(
  em: EntityManager,
  userId: number,
  token: string,
  ip: string,
): Promise<TrustedDevice | undefined> {
  if (!looksLike('trustedDevice', token)) return undefined;
  const device = await em.findOne(TrustedDeviceEntity, {
    tokenHash: hashToken(token),
    userId,
    expiresAt: { $gt: new Date() },
  });
  if (!device) return undefined;
  device.lastUsedAt = new Date();
  device.lastIp = ip.slice(0, 64);
  await em.flush();
  return device;
}

export function listTrustedDevices(em: EntityManager, userId: number): Promise<TrustedDevice[]> {
  return em.find(
    TrustedDeviceEntity,
    { userId, expiresAt: { $gt: new Date() } },
    { orderBy: { lastUsedAt: 'desc', id: 'desc' } },
  );
}
