import { randomInt, randomUUID } from 'node:crypto';
import argon2 from 'argon2';
import type { EntityManager } from '@mikro-orm/core';
import type { NotificationAddress, NotificationMessage } from '@backplane/plugin-api';
import type { User } from '../../db/entities/user.ts';
import { LoginOtpEntity } from '../../db/entities/account-security.ts';
import { AppError } from '../../http/app-error.ts';

export type OtpChannel = 'email' | 'sms';

/**
 * What delivers the code: the notification sender (core/notifications), which sends to an
 * address through the first channel able to reach it. Named here by shape so that this base
 * module does not depend on the notifications folder (which depends on auth for the audit).
 */
export interface CodeSender {
  sendTo(
    address: NotificationAddress,
    message: NotificationMessage,
  ): Promise<{ ok: true } | { ok: false; message: string }>;
}

export const OTP_TTL_MS = 5 * 60_000;
/** Wrong codes tried against one pending code before it is dropped (a new one must be sent). */
export const OTP_MAX_FAILURES = 5;

/** A million codes: the hash keeps the database from handing them out, the limits keep guessing out. */
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

function message(code: string, channel: OtpChannel): NotificationMessage {
  return {
    event: 'login_otp',
    severity: 'info',
    title: 'Backplane login code',
    body:
      channel === 'email'
        ? `Your Backplane login code is ${code}. It is valid for 5 minutes and works once.\nIf you did not try to log in, change your password now.`
        : `Backplane login code: ${code} (valid 5 minutes).`,
    // An SMS gateway behind the webhook channel reads the code and purpose from the fields (the reference's shape).
    fields: { purpose: 'login_otp', code },
    timestamp: new Date().toISOString(),
    idempotencyKey: randomUUID(),
  };
}

/**
 * Sends a fresh six-digit code to the user's address for this channel, replacing any pending one.
 * If no channel delivers it, the code is withdrawn and the call fails with a coded 400: a code
 * nobody received must not be left valid.
 */
export async function sendLoginOtp(
  em: EntityManager,
  sender: CodeSender,
  user: User,
  channel: OtpChannel,
): Promise<void> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await em.nativeDelete(LoginOtpEntity, { userId: user.id });
  const row = em.create(LoginOtpEntity, {
    userId: user.id,
    channel,
    codeHash: await argon2.hash(code, HASH_OPTIONS),
    expiresAt: new Date(Date.now() + OTP_TTL_MS),
  });
  await em.flush();
  const address =
    channel === 'email' ? { kind: 'email' as const, value: user.email } : { kind: 'phone' as const, value: user.phone };
  let reason: string;
  try {
    const outcome = await sender.sendTo(address, message(code, channel));
    if (outcome.ok) return;
    reason = outcome.message;
  } catch (err) {
    reason = err instanceof AppError ? err.message : 'delivery failed';
  }
  await em.nativeDelete(LoginOtpEntity, { id: row.id });
  throw new AppError('AUTH_OTP_DELIVERY_FAILED', { details: { channel, reason } });
}

/**
 * Uses up the pending code: true when it matches, is unexpired and its channel is still on.
 * A wrong code counts against the pending one; the fifth drops it. The row is deleted by id and
 * the delete must hit, so one code cannot open two sessions.
 */
export async function consumeLoginOtp(em: EntityManager, user: User, code: string): Promise<boolean> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return false;
  const pending = await em.findOne(LoginOtpEntity, { userId: user.id });
  if (!pending) return false;
  const channelOn = pending.channel === 'email' ? user.emailOtpEnabled : user.smsOtpEnabled;
  if (!channelOn || pending.expiresAt.getTime() <= Date.now()) {
    await em.nativeDelete(LoginOtpEntity, { id: pending.id });
    return false;
  }
  if (await argon2.verify(pending.codeHash, token).catch(() => false)) {
    return (await em.nativeDelete(LoginOtpEntity, { id: pending.id })) === 1;
  }
  if (pending.failures + 1 >= OTP_MAX_FAILURES) await em.nativeDelete(LoginOtpEntity, { id: pending.id });
  else await em.nativeUpdate(LoginOtpEntity, { id: pending.id }, { failures: pending.failures + 1 });
  return false;
}
