import type { EntityManager } from '@mikro-orm/core';
import { UserEntity, type User } from '../../db/entities/user.ts';
import type { SecretBox } from '../../security/secret-box.ts';

/** The sealed TOTP secret is bound to its user: a sealed value copied to another row does not open. */
const aad = (userId: number) => `user:${userId}:totp`;

export function sealTotpSecret(box: SecretBox, userId: number, secret: string): string {
  return box.seal(secret, aad(userId));
}

/** The user's TOTP secret (a lazy column, loaded here), or undefined when none is set. */
export async function readTotpSecret(em: EntityManager, box: SecretBox, user: User): Promise<string | undefined> {
  const row = await em.findOne(UserEntity, { id: user.id }, { populate: ['totpSecret'], refresh: false });
  const sealed = row?.totpSecret;
  return sealed ? box.open(sealed, aad(user.id)) : undefined;
}

/**
 * Records the time step of an accepted code, only if it is newer than the recorded one: of two
 * requests racing with the same code, one wins. True when this call recorded it.
 */
export async function recordTotpStep(em: EntityManager, user: User, step: number): Promise<boolean> {
  const updated = await em.nativeUpdate(
    UserEntity,
    { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] },
    { totpLastStep: step },
  );
  if (updated === 1) user.totpLastStep = step;
  return updated === 1;
}
