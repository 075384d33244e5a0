import { randomBytes, hkdfSync } from 'node:crypto';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export class MasterKeyError extends Error {
  override name = 'MasterKeyError';
}

/**
 * The installation's master key: from BACKPLANE_SECRET_KEY, or generated once into
 * `<dataDir>/secret.key` with mode 0600. It never goes into the database, so a stolen
 * database file alone does not reveal stored credentials.
 */
export function loadMasterKey(dataDir: string, fromEnv: string | undefined): Buffer {
  if (fromEnv) return decodeKey(fromEnv, 'BACKPLANE_SECRET_KEY');
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return decodeKey(readFileSync(path, 'utf8').trim(), path);
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  // 'wx' fails if another process created the file in between; then read theirs.
  try {
    writeFileSync(path, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return decodeKey(readFileSync(path, 'utf8').trim(), path);
    throw err;
  }
  return key;
}

function decodeKey(text: string, source: string): Buffer {
  const hex = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  const key = hex ?? Buffer.from(text, 'base64');
  if (key.length < 32)
    throw new MasterKeyError(`${source}: the master key must be 32 bytes (64 hex characters or base64)`);
  return key;
}

/** Independent keys for each purpose, so one use can never be turned against another. */
export function deriveKey(master: Buffer, purpose: 'jwt' | 'secrets' | 'hash-pepper'): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), `backplane:${purpose}`, 32));
}
