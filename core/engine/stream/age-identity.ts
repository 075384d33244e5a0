import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { bech32 } from '@scure/base';
import { bech32Decode } from './age-native.ts';

// PKCS#8 wrapping of a raw X25519 private key (RFC 8410), so node:crypto can derive its public key.
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** A new X25519 identity in age's encoding (`AGE-SECRET-KEY-1...`). */
export function generateIdentity(): string {
  return bech32.encode('AGE-SECRET-KEY-', bech32.toWords(randomBytes(32)), false).toUpperCase();
}

/** The recipient (`age1...`) of an X25519 identity. */
export function identityToRecipient(identity: string): string {
  const secret = bech32Decode(identity, 'AGE-SECRET-KEY-');
  if (secret.length !== 32) throw new Error('age identity: not an X25519 key');
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, secret]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(key).export({ format: 'jwk' });
  if (typeof x !== 'string') throw new Error('age identity: cannot derive the public key');
  return bech32.encode('age', bech32.toWords(Buffer.from(x, 'base64url')), false);
}
import { chmod, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** File name of the installation's age identity, inside the data directory. */
export const AGE_KEY_FILE = 'backup.agekey';

export interface AgeKeyPair {
  /** `AGE-SECRET-KEY-1...`: decrypts artifacts. Only the master holds it. */
  identity: string;
  /** `age1...`: encrypts artifacts. This is all agents ever receive. */
  recipient: string;
}

/** The first `AGE-SECRET-KEY-` line of an age identity file (comments and blank lines ignored). */
export function parseIdentityFile(text: string): string {
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('AGE-SECRET-KEY-')) return line;
    throw new Error('age identity file: unexpected line (expected a comment or AGE-SECRET-KEY-...)');
  }
  throw new Error('age identity file: no AGE-SECRET-KEY-... line');
}

/** The standard age identity file format, as `age-keygen` writes it and `age -d -i` reads it. */
export function formatIdentityFile(pair: AgeKeyPair, created = new Date()): string {
  return `# created: ${created.toISOString().replace(/\.\d{3}Z$/, 'Z')}\n# public key: ${pair.recipient}\n${pair.identity}\n`;
}

/**
 * Loads `<dataDir>/backup.agekey`, or creates it (mode 0600, exclusive create so two processes
 * starting at once cannot overwrite each other's key) when it does not exist yet. A configured
 * identity file (BACKPLANE_AGE_IDENTITY_FILE: the key several masters share) is read, never
 * created: a missing one is an error, not a new key that nothing stored can be decrypted with.
 */
export async function loadOrCreateAgeIdentity(
  dataDir: string,
  configuredFile?: string,
): Promise<AgeKeyPair & { path: string; created: boolean }> {
  if (configuredFile) {
    const identity = parseIdentityFile(await readFile(configuredFile, 'utf8'));
    return { identity, recipient: identityToRecipient(identity), path: configuredFile, created: false };
  }
  const path = join(dataDir, AGE_KEY_FILE);
  try {
    const identity = parseIdentityFile(await readFile(path, 'utf8'));
    return { identity, recipient: identityToRecipient(identity), path, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const identity = generateIdentity();
  const pair = { identity, recipient: identityToRecipient(identity) };
  let handle;
  try {
    handle = await open(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateAgeIdentity(dataDir); // lost a race: use the winner's key
    throw err;
  }
  try {
    await handle.writeFile(formatIdentityFile(pair));
    await handle.sync();
  } finally {
    await handle.close();
  }
  await chmod(path, 0o600); // the umask cannot widen it, but be explicit
  return { ...pair, path, created: true };
}
