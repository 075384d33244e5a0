import type { Duplex } from 'node:stream';
import { ageDecryptStream, ageEncryptStream } from './age-native.ts';

/**
 * Streams plaintext into the age format (https://age-encryption.org/v1) for one X25519 recipient
 * (`age1...`). Native (`node:crypto`), byte-for-byte standard age: stock `age -d -i backup.agekey`
 * reads it. Throws at once on a malformed or non-X25519 recipient.
 */
export function encryptStream(recipient: string): Duplex {
  return ageEncryptStream(recipient);
}

/**
 * Streams an age file (binary, X25519 recipient stanza) back to plaintext with the identity
 * (`AGE-SECRET-KEY-1...`); fails on a wrong key, tampered data or a truncated file. Throws at
 * once on a malformed or non-X25519 identity.
 */
export function decryptStream(identity: string): Duplex {
  return ageDecryptStream(identity);
}
