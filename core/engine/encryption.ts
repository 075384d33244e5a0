import { Decrypter, Encrypter } from 'age-encryption';
import { Duplex, PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * Bridges a web-stream transformation (age-encryption's API) into a Node Duplex: bytes written
 * go through `Readable.toWeb` into `transform`, its output comes back through `Readable.fromWeb`.
 * Both bridges honour back-pressure, and age works in 64 KiB chunks, so memory stays bounded.
 */
function bridge(transform: (input: ReadableStream<Uint8Array>) => Promise<ReadableStream<Uint8Array>>): Duplex {
  const input = new PassThrough();
  const output = new PassThrough();
  // The duplex reports failures; once it is torn down, its parts may still error (the web side
  // winding down) with nobody listening, which must not crash the process.
  input.on('error', () => undefined);
  output.on('error', () => undefined);
  const web = Readable.toWeb(input) as unknown as ReadableStream<Uint8Array>;
  transform(web).then(
    (out) => pipeline(Readable.fromWeb(out as unknown as WebReadableStream<Uint8Array>), output).catch((err: unknown) => output.destroy(err as Error)),
    (err: unknown) => output.destroy(err as Error),
  );
  const duplex = Duplex.from({ writable: input, readable: output });
  // Tearing the duplex down (pipeline failure, abort) must also stop the web side.
  duplex.once('close', () => {
    input.destroy();
    output.destroy();
  });
  return duplex;
}

/** Streams plaintext into the age format (https://age-encryption.org/v1) for one X25519 recipient (`age1...`). */
export function encryptStream(recipient: string): Duplex {
  const e = new Encrypter();
  e.addRecipient(recipient);
  return bridge((input) => e.encrypt(input));
}

/** Streams an age file back to plaintext with the identity (`AGE-SECRET-KEY-1...`); fails on a wrong key or tampered data. */
export function decryptStream(identity: string): Duplex {
  const d = new Decrypter();
  d.addIdentity(identity);
  return bridge((input) => d.decrypt(input));
}
