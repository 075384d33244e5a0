import argon2 from 'argon2';

/** argon2id with the library's defaults (m=64 MiB, t=3, p=4): OWASP's recommended floor. */
export async function hashPassword(plain: string): Promise<string> {
  return argon2.hash(plain, { type: argon2.argon2id });
}

export async function verifyPassword(hash: string, plain: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, plain);
  } catch {
    return false;
  }
}

/**
 * A fixed hash to verify against when the user does not exist, so that a login for an
 * unknown name takes as long as one with a wrong password (no username probing by timing).
 */
let dummyHash: Promise<string> | undefined;
export async function burnPasswordCheck(plain: string): Promise<void> {
  dummyHash ??= hashPassword('backplane-timing-equaliser');
  await verifyPassword(await dummyHash, plain);
}
