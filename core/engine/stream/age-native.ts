/**
 * The age v1 file format (https://age-encryption.org/v1) for one X25519 recipient, on
 * `node:crypto` (OpenSSL's ChaCha20-Poly1305, X25519, HKDF and HMAC) instead of a pure-JS
 * implementation. Output is byte-for-byte standard age: stock `age -d -i key` reads it, and
 * `ageDecryptStream` reads what stock `age -r` writes (binary, not armored).
 *
 *   header  = "age-encryption.org/v1\n" stanza+ "--- " base64(MAC) "\n"
 *   stanza  = "-> X25519 " base64(ephemeral share) "\n" base64(wrapped file key, 64 columns) "\n"
 *   payload = nonce(16) || STREAM chunks: ChaCha20-Poly1305 over 64 KiB of plaintext each,
 *             nonce = 11-byte big-endian counter || 0x01 on the final chunk, else 0x00
 *
 * Both directions are `Transform`s that hold at most one 64 KiB chunk back, so memory stays
 * bounded and back-pressure is the stream machinery's own.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  createSecretKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { bech32 } from '@scure/base';

const VERSION_LINE = 'age-encryption.org/v1';
const X25519_LABEL = 'age-encryption.org/v1/X25519';
const ARMOR_BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----';
const FILE_KEY_SIZE = 16;
const NONCE_SIZE = 16;
const TAG_SIZE = 16;
/** Plaintext bytes per STREAM chunk. */
export const CHUNK_SIZE = 64 * 1024;
const SEALED_CHUNK_SIZE = CHUNK_SIZE + TAG_SIZE;
/** A header larger than this is refused rather than buffered (ours are ~180 bytes). */
const MAX_HEADER_SIZE = 1024 * 1024;
const ZERO_NONCE = Buffer.alloc(12);
const EMPTY = Buffer.alloc(0);
/** PKCS #8 wrapping of a raw 32-byte X25519 private key (RFC 8410). */
const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

// ---------------------------------------------------------------------------------------------
// Primitives

function hkdf(ikm: Uint8Array, salt: Uint8Array, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
}

/**
 * ChaCha20-Poly1305: ciphertext || 16-byte tag. A long-lived key is best passed as a KeyObject:
 * a raw key is turned into one on every call (tens of microseconds, per 64 KiB chunk).
 */
function seal(key: Uint8Array | KeyObject, nonce: Uint8Array, plaintext: Uint8Array): Buffer {
  const cipher = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_SIZE });
  const ct = cipher.update(plaintext);
  cipher.final();
  return Buffer.concat([ct, cipher.getAuthTag()], ct.length + TAG_SIZE);
}

/** Opens `ciphertext || tag`; null when it does not authenticate. Nothing is returned unverified. */
function open(key: Uint8Array | KeyObject, nonce: Uint8Array, sealed: Uint8Array): Buffer | null {
  if (sealed.length < TAG_SIZE) return null;
  const split = sealed.length - TAG_SIZE;
  const decipher = createDecipheriv('chacha20-poly1305', key, nonce, { authTagLength: TAG_SIZE });
  decipher.setAuthTag(sealed.subarray(split));
  const pt = decipher.update(sealed.subarray(0, split));
  try {
    decipher.final();
  } catch {
    return null;
  }
  return pt;
}

/** Unpadded standard base64, as age writes it. */
function b64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64').replace(/=+$/, '');
}

/** Strict unpadded base64: only the canonical encoding (no padding, zero trailing bits) is accepted. */
function unb64(s: string): Buffer {
  if (!/^[A-Za-z0-9+/]*$/.test(s) || s.length % 4 === 1) throw new Error('age: invalid base64 in header');
  const out = Buffer.from(s, 'base64');
  if (b64(out) !== s) throw new Error('age: non-canonical base64 in header');
  return out;
}

function x25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

function rawPublicKey(key: KeyObject): Buffer {
  const { x } = key.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new Error('age: cannot export the X25519 public key');
  return Buffer.from(x, 'base64url');
}

function sharedSecret(privateKey: KeyObject, publicKey: KeyObject): Buffer {
  let secret: Buffer;
  try {
    secret = diffieHellman({ privateKey, publicKey });
  } catch {
    throw new Error('age: X25519 key agreement failed (low-order point)');
  }
  // The spec requires aborting on an all-zero shared secret (OpenSSL refuses it too).
  if (secret.every((b) => b === 0)) throw new Error('age: X25519 shared secret is all zero');
  return secret;
}

// ---------------------------------------------------------------------------------------------
// Keys

/**
 * The data bytes of an age Bech32 string under the human-readable part `hrp` (compared
 * case-insensitively). age uses the original Bech32 checksum with no length limit (its
 * post-quantum keys exceed BIP 173's 90 characters), hence `false`.
 */
export function bech32Decode(s: string, hrp: string): Buffer {
  let decoded;
  try {
    decoded = bech32.decode(s, false);
  } catch (err) {
    // The library's checksum message quotes the whole input, which for an identity is the secret.
    const message = (err as Error).message;
    if (/checksum/i.test(message)) throw new Error('bad checksum');
    if (/mixed-case/i.test(message)) throw new Error('mixed case');
    throw new Error(`malformed (${message})`);
  }
  if (decoded.prefix !== hrp.toLowerCase()) throw new Error(`expected the prefix "${hrp}"`);
  return Buffer.from(bech32.fromWords(decoded.words));
}

/** The raw 32-byte X25519 public key of an `age1...` recipient. */
export function parseX25519Recipient(recipient: string): Buffer {
  const lower = recipient.toLowerCase();
  if (lower.startsWith('age1pq1') || lower.startsWith('age1tag')) {
    throw new Error('age: only X25519 recipients (age1...) are supported, not post-quantum or tag recipients');
  }
  let raw: Buffer;
  try {
    raw = bech32Decode(recipient, 'age');
  } catch (err) {
    throw new Error(`age: invalid X25519 recipient: ${(err as Error).message}`);
  }
  if (raw.length !== 32) throw new Error('age: invalid X25519 recipient: wrong key length');
  return raw;
}

export interface X25519Identity {
  privateKey: KeyObject;
  /** Raw 32-byte public key: the recipient the identity answers to. */
  publicKey: Buffer;
}

/** An `AGE-SECRET-KEY-1...` identity as a private key object. Other identity types are refused. */
export function parseX25519Identity(identity: string): X25519Identity {
  const upper = identity.toUpperCase();
  if (upper.startsWith('AGE-SECRET-KEY-PQ-1')) {
    throw new Error('age: only X25519 identities (AGE-SECRET-KEY-1...) are supported, not post-quantum ones');
  }
  if (!upper.startsWith('AGE-SECRET-KEY-1'))
    throw new Error('age: only X25519 identities (AGE-SECRET-KEY-1...) are supported');
  let raw: Buffer;
  try {
    raw = bech32Decode(identity, 'AGE-SECRET-KEY-');
  } catch (err) {
    throw new Error(`age: invalid X25519 identity: ${(err as Error).message}`);
  }
  if (raw.length !== 32) throw new Error('age: invalid X25519 identity: wrong key length');
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, raw]), format: 'der', type: 'pkcs8' });
  return { privateKey, publicKey: rawPublicKey(createPublicKey(privateKey)) };
}

// ---------------------------------------------------------------------------------------------
// Header

interface Stanza {
  args: string[];
  body: Buffer;
}

function wrapForX25519(fileKey: Buffer, recipient: Buffer): Stanza {
  const ephemeral = generateKeyPairSync('x25519');
  const share = rawPublicKey(ephemeral.publicKey);
  const secret = sharedSecret(ephemeral.privateKey, x25519PublicKey(recipient));
  const wrapKey = hkdf(secret, Buffer.concat([share, recipient]), X25519_LABEL);
  return { args: ['X25519', b64(share)], body: seal(wrapKey, ZERO_NONCE, fileKey) };
}

function unwrapX25519(stanza: Stanza, identity: X25519Identity): Buffer | null {
  // Malformed X25519 stanzas are rejected, not skipped (spec); the body length is checked
  // before any decryption attempt.
  if (stanza.args.length !== 2) throw new Error('age: invalid X25519 stanza (wrong argument count)');
  const share = unb64(stanza.args[1] as string);
  if (share.length !== 32) throw new Error('age: invalid X25519 stanza (share is not 32 bytes)');
  if (stanza.body.length !== FILE_KEY_SIZE + TAG_SIZE)
    throw new Error('age: invalid X25519 stanza (body is not 32 bytes)');
  const secret = sharedSecret(identity.privateKey, x25519PublicKey(share));
  const wrapKey = hkdf(secret, Buffer.concat([share, identity.publicKey]), X25519_LABEL);
  return open(wrapKey, ZERO_NONCE, stanza.body);
}

function headerMac(fileKey: Buffer, headerNoMac: Uint8Array): Buffer {
  return createHmac('sha256', hkdf(fileKey, EMPTY, 'header'))
    .update(headerNoMac)
    .digest();
}

/** The full header, MAC line included. */
function encodeHeader(stanzas: Stanza[], fileKey: Buffer): Buffer {
  let text = `${VERSION_LINE}\n`;
  for (const s of stanzas) {
    text += `-> ${s.args.join(' ')}\n`;
    const body = b64(s.body);
    // 64 columns per line, and always a final line shorter than 64 (possibly empty).
    for (let i = 0; i <= body.length; i += 64) text += `${body.slice(i, i + 64)}\n`;
  }
  text += '---';
  const noMac = Buffer.from(text, 'latin1');
  return Buffer.concat([noMac, Buffer.from(` ${b64(headerMac(fileKey, noMac))}\n`, 'latin1')]);
}

interface ParsedHeader {
  stanzas: Stanza[];
  /** The header bytes up to and including `---`: what the MAC covers. */
  noMac: Buffer;
  mac: Buffer;
}

/** Parses a complete header (`bytes` ends right after the MAC line's LF), strictly per the spec's ABNF. */
function parseHeader(bytes: Buffer): ParsedHeader {
  const lines = bytes.toString('latin1').split('\n');
  lines.pop(); // after the final LF
  if (lines[0] !== VERSION_LINE)
    throw new Error(`age: unsupported version line ${JSON.stringify(lines[0]?.slice(0, 64))}`);
  const stanzas: Stanza[] = [];
  let i = 1;
  for (;;) {
    const line = lines[i++];
    if (line === undefined) throw new Error('age: truncated header');
    if (line.startsWith('-> ')) {
      const args = line.slice(3).split(' ');
      if (!args.every((a) => /^[\x21-\x7e]+$/.test(a))) throw new Error('age: malformed stanza arguments');
      const parts: Buffer[] = [];
      for (;;) {
        const bodyLine = lines[i++];
        if (bodyLine === undefined || bodyLine.length > 64) throw new Error('age: malformed stanza body');
        parts.push(unb64(bodyLine));
        if (bodyLine.length < 64) break;
      }
      stanzas.push({ args, body: Buffer.concat(parts) });
      continue;
    }
    if (!line.startsWith('---')) throw new Error('age: malformed header line');
    const m = /^--- ([A-Za-z0-9+/]{43})$/.exec(line);
    if (!m || i !== lines.length) throw new Error('age: malformed header MAC line');
    if (stanzas.length === 0) throw new Error('age: header has no recipient stanza');
    return { stanzas, noMac: bytes.subarray(0, bytes.length - 1 - line.length + 3), mac: unb64(m[1] as string) };
  }
}

/** Unwraps the file key with `identity` and checks the header MAC. */
function openHeader(bytes: Buffer, identity: X25519Identity): Buffer {
  const header = parseHeader(bytes);
  let fileKey: Buffer | null = null;
  const x25519 = header.stanzas.filter((s) => s.args[0] === 'X25519');
  for (const s of x25519) {
    fileKey = unwrapX25519(s, identity);
    if (fileKey) break;
  }
  if (!fileKey) {
    if (x25519.length > 0) throw new Error('age: no recipient stanza matches this identity (wrong key?)');
    const types = [...new Set(header.stanzas.map((s) => s.args[0]))].join(', ');
    throw new Error(
      `age: the file has no X25519 recipient stanza (found: ${types}); only X25519 identities are supported`,
    );
  }
  if (fileKey.length !== FILE_KEY_SIZE) throw new Error('age: unwrapped file key has the wrong length');
  const mac = headerMac(fileKey, header.noMac);
  if (!timingSafeEqual(mac, header.mac)) throw new Error('age: header MAC mismatch (the header was tampered with)');
  return fileKey;
}

// ---------------------------------------------------------------------------------------------
// STREAM payload

/** The payload key and the running chunk nonce (11-byte big-endian counter || last-chunk flag). */
class Stream {
  private readonly key: KeyObject;
  private readonly nonce = Buffer.alloc(12);
  /** Chunks processed so far. */
  count = 0;

  constructor(fileKey: Buffer, payloadNonce: Uint8Array) {
    this.key = createSecretKey(hkdf(fileKey, payloadNonce, 'payload'));
  }

  private next(last: boolean): Buffer {
    if (this.count >= 2 ** 48) throw new Error('age: payload too long');
    this.nonce.writeUIntBE(this.count, 5, 6); // bytes 0-4 of the 11-byte counter stay zero
    this.nonce[11] = last ? 1 : 0;
    this.count++;
    return this.nonce;
  }

  seal(plaintext: Uint8Array, last: boolean): Buffer {
    return seal(this.key, this.next(last), plaintext);
  }

  open(sealed: Uint8Array, last: boolean): Buffer {
    const index = this.count;
    const pt = open(this.key, this.next(last), sealed);
    if (!pt) {
      throw new Error(
        `age: payload chunk ${index} failed authentication (${last ? 'truncated, ' : ''}tampered data or wrong file)`,
      );
    }
    return pt;
  }
}

/**
 * Cuts a byte stream into `size`-byte chunks, holding the latest full chunk back until more bytes
 * arrive: only then is it known not to be the final one. `rest()` is the final chunk (0..size bytes).
 */
class Chunker {
  private readonly staging: Buffer;
  private staged = 0;
  private readonly size: number;

  constructor(size: number) {
    this.size = size;
    this.staging = Buffer.allocUnsafe(size);
  }

  feed(input: Buffer, onChunk: (chunk: Buffer) => void): void {
    let off = 0;
    while (off < input.length) {
      if (this.staged === this.size) {
        onChunk(this.staging);
        this.staged = 0;
      }
      if (this.staged === 0) {
        // Whole chunks straight from the input (no copy) while more bytes follow them.
        while (input.length - off > this.size) {
          onChunk(input.subarray(off, off + this.size));
          off += this.size;
        }
      }
      const n = Math.min(this.size - this.staged, input.length - off);
      input.copy(this.staging, this.staged, off, off + n);
      this.staged += n;
      off += n;
    }
  }

  rest(): Buffer {
    return this.staging.subarray(0, this.staged);
  }
}

// ---------------------------------------------------------------------------------------------
// Transforms

/** Plaintext in, an age file for `recipient` (`age1...`, X25519) out. Throws at once on a bad recipient. */
export function ageEncryptStream(recipient: string): Transform {
  const fileKey = randomBytes(FILE_KEY_SIZE);
  const header = encodeHeader([wrapForX25519(fileKey, parseX25519Recipient(recipient))], fileKey);
  const payloadNonce = randomBytes(NONCE_SIZE);
  const stream = new Stream(fileKey, payloadNonce);
  const chunker = new Chunker(CHUNK_SIZE);
  let prefix: Buffer | null = Buffer.concat([header, payloadNonce]);

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      try {
        if (prefix) {
          this.push(prefix);
          prefix = null;
        }
        chunker.feed(chunk, (c) => this.push(stream.seal(c, false)));
        callback();
      } catch (err) {
        callback(err as Error);
      }
    },
    flush(callback: TransformCallback): void {
      try {
        if (prefix) {
          this.push(prefix);
          prefix = null;
        }
        // Empty only when the whole plaintext is: a full last chunk was held back for this.
        callback(null, stream.seal(chunker.rest(), true));
      } catch (err) {
        callback(err as Error);
      }
    },
  });
}

/**
 * An age file in, plaintext out, with an X25519 identity (`AGE-SECRET-KEY-1...`). A wrong key,
 * any tampered byte, trailing garbage or a truncated file errors the stream; plaintext is only
 * emitted chunk by chunk after each chunk authenticated.
 */
export function ageDecryptStream(identity: string): Transform {
  const id = parseX25519Identity(identity);
  let state: 'header' | 'nonce' | 'payload' = 'header';
  let pending: Buffer = EMPTY; // header and payload nonce bytes gathered so far
  let scanned = 0; // start of the first header line not yet complete
  let fileKey: Buffer | null = null;
  let stream: Stream | null = null;
  const chunker = new Chunker(SEALED_CHUNK_SIZE);

  /** Where the header ends (just past the MAC line), or -1 while incomplete. */
  const headerEnd = (): number => {
    for (;;) {
      const nl = pending.indexOf(0x0a, scanned);
      if (nl < 0) return -1;
      const isMacLine = pending[scanned] === 0x2d && pending[scanned + 1] === 0x2d && pending[scanned + 2] === 0x2d; // '---'
      scanned = nl + 1;
      if (isMacLine) return scanned;
    }
  };

  const checkStart = (): void => {
    const n = Math.min(pending.length, VERSION_LINE.length + 1);
    if (pending.subarray(0, n).equals(Buffer.from(`${VERSION_LINE}\n`).subarray(0, n))) return;
    if (pending.subarray(0, 5).toString('latin1') === ARMOR_BEGIN.slice(0, 5)) {
      throw new Error('age: armored (PEM) age files are not supported; expected the binary format');
    }
    throw new Error('age: not an age v1 file');
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
      try {
        let data = chunk;
        if (state === 'header') {
          pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
          checkStart();
          const end = headerEnd();
          if (end < 0) {
            if (pending.length > MAX_HEADER_SIZE) throw new Error('age: header too large');
            return callback();
          }
          fileKey = openHeader(pending.subarray(0, end), id);
          data = pending.subarray(end);
          pending = EMPTY;
          state = 'nonce';
        }
        if (state === 'nonce') {
          pending = pending.length === 0 ? data : Buffer.concat([pending, data]);
          if (pending.length < NONCE_SIZE) return callback();
          stream = new Stream(fileKey as Buffer, pending.subarray(0, NONCE_SIZE));
          data = pending.subarray(NONCE_SIZE);
          pending = EMPTY;
          state = 'payload';
        }
        const s = stream as Stream;
        chunker.feed(data, (c) => this.push(s.open(c, false)));
        callback();
      } catch (err) {
        callback(err as Error);
      }
    },
    flush(callback: TransformCallback): void {
      try {
        if (state === 'header') throw new Error(pending.length === 0 ? 'age: empty input' : 'age: truncated header');
        if (state === 'nonce' || !stream) throw new Error('age: truncated file (payload nonce incomplete)');
        const last = chunker.rest();
        if (last.length < TAG_SIZE) throw new Error('age: truncated payload');
        const first = stream.count === 0;
        const pt = stream.open(last, true);
        if (pt.length === 0 && !first) throw new Error('age: final payload chunk is empty');
        callback(null, pt);
      } catch (err) {
        callback(err as Error);
      }
    },
  });
}
