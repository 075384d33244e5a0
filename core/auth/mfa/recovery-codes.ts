import { randomBytes } from 'node:crypto';
import argon2 from 'argon2';
import type { EntityManager } from '@mikro-orm/core';
import { RecoveryCodeEntity } from '../../db/entities/account-security.ts';

export const RECOVERY_CODE_COUNT = 10;

/**
 * argon2id at OWASP's lighter recommended setting (19 MiB, 2 passes): a recovery code carries
 * 64 random bits, so the hash need not make up for a weak secret, and a login may compare a
 * code against up to ten hashes.
 */
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** `XXXX-XXXX-XXXX-XXXX`: 16 hex digits, the reference's format. */
function newCode(): string {
  return randomBytes(8).toString('hex').toUpperCase().match(/.{4}/g)!.join('-');
}

/** Case, dashes and spaces do not matter: `abcd efgh...` and `ABCD-EFGH-...` are the same code. */
export function normaliseRecoveryCode(code: string): string | undefined {
  const plain = code.replace(/[\s-]/g, '').toLowerCase();
  return /^[0-9a-f]{16}$/.test(plain) ? plain : undefined;
}

/** Replaces the user's codes with ten new ones and returns them: the only time they are shown. */
export async function issueRecoveryCodes(em: EntityManager, userId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  const hashes = await Promise.all(codes.map((c) => argon2.hash(normaliseRecoveryCode(c)!, HASH_OPTIONS)));
  await em.nativeDelete(RecoveryCodeEntity, { userId });
  for (const codeHash of hashes) em.create(RecoveryCodeEntity, { userId, codeHash });
  await em.flush();
  return codes;
}

/**
 * Uses up a recovery code: true when it matched an unused one. The code is marked used with a
 * conditional update, so two logins racing with the same code cannot both succeed.
 */
export async function consumeRecoveryCode(em: EntityManager, userId: number, code: string): Promise<boolean> {
  const plain = normaliseRecoveryCode(code);
  if (!plain) return false;
  const unused = await em.find(RecoveryCodeEntity, { userId, usedAt: null }, { orderBy: { id: 'asc' } });
  for (const row of unused) {
    if (!(await argon2.verify(row.codeHash, plain).catch(() => false))) continue;
    return (await em.nativeUpdate(RecoveryCodeEntity, { id: row.id, usedAt: null }, { usedAt: new Date() })) === 1;
  }
  return false;
}
