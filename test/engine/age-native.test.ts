import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createCipheriv,
  createHash,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
} from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable, Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { Decrypter, Encrypter, generateIdentity, identityToRecipient } from 'age-encryption';
import { loadOrCreateAgeIdentity } from '../../core/engine/stream/age-identity.ts';
import { parseX25519Identity, parseX25519Recipient } from '../../core/engine/stream/age-native.ts';
import { decryptStream, encryptStream } from '../../core/engine/stream/encryption.ts';
import { q, sh, tempDir } from './helpers.ts';

const KiB64 = 64 * 1024;
const SIZES = [0, 1, KiB64 - 1, KiB64, KiB64 + 1, 3 * KiB64, 5 * 1024 * 1024 + 12_345];

/** Feeds `data` in pieces of the given sizes (cycled), to exercise every chunk-boundary path. */
function pieces(data: Buffer, sizes: number[]): Readable {
  const out: Buffer[] = [];
  for (let off = 0, i = 0; off < data.length; i++) {
    const n = sizes[i % sizes.length] as number;
    out.push(data.subarray(off, off + n));
    off += n;
  }
  return Readable.from(out.length > 0 ? out : [Buffer.alloc(0)]);
}

async function encrypt(data: Buffer, recipient: string, sizes = [data.length || 1]): Promise<Buffer> {
  return buffer(pieces(data, sizes).pipe(encryptStream(recipient)));
}

async function decrypt(data: Buffer, identity: string, sizes = [data.length || 1]): Promise<Buffer> {
  const dec = decryptStream(identity);
  const out = buffer(dec);
  await pipeline(pieces(data, sizes), dec).catch(() => undefined); // the error surfaces through `out`
  return out;
}

/** The header (through the MAC line) of an age file. */
function headerOf(file: Buffer): string {
  const end = file.indexOf('\n---');
  return file.subarray(0, file.indexOf('\n', end + 1) + 1).toString('latin1');
}

function sha(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

test('native encryptStream: stock age, age-encryption and decryptStream all decrypt it, for every chunk-boundary size', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const decrypter = new Decrypter();
    decrypter.addIdentity(key.identity);
    for (const size of SIZES) {
      const plain = randomBytes(size);
      const plainPath = join(dir, `plain-${size}`);
      const encPath = join(dir, `enc-${size}.age`);
      await writeFile(plainPath, plain);
      await pipeline(createReadStream(plainPath), encryptStream(key.recipient), createWriteStream(encPath));
      const enc = await readFile(encPath);

      const header = headerOf(enc);
      assert.match(
        header,
        /^age-encryption\.org\/v1\n-> X25519 [A-Za-z0-9+/]{43}\n[A-Za-z0-9+/]{43}\n--- [A-Za-z0-9+/]{43}\n$/,
      );
      const chunks = Math.max(1, Math.ceil(size / KiB64));
      assert.equal(enc.length, header.length + 16 + size + 16 * chunks, `ciphertext size for ${size}`);

      await sh(`age -d -i ${q(key.path)} ${q(encPath)} | cmp - ${q(plainPath)}`);
      assert.equal(sha(await decrypter.decrypt(enc)), sha(plain), `age-encryption decrypts ${size}`);
      assert.ok((await decrypt(enc, key.identity)).equals(plain), `decryptStream decrypts ${size}`);
    }
  } finally {
    await cleanup();
  }
});

test('native streams: any input piece sizes give the same plaintext back (stock age agrees)', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const plain = randomBytes(4 * KiB64 + 7);
    await writeFile(join(dir, 'plain'), plain);
    for (const sizes of [[1, 7, 4093], [KiB64], [KiB64 - 1, 2], [KiB64 + 1], [3 * KiB64], [1_000_000]]) {
      const enc = await encrypt(plain, key.recipient, sizes);
      await writeFile(join(dir, 'enc.age'), enc);
      await sh(`age -d -i ${q(key.path)} ${q(join(dir, 'enc.age'))} | cmp - ${q(join(dir, 'plain'))}`);
      for (const decSizes of [[1, 15, 16, 17, 333], [KiB64 + 16], [KiB64 + 17], [enc.length]]) {
        assert.ok(
          (await decrypt(enc, key.identity, decSizes)).equals(plain),
          `enc ${sizes.join()} / dec ${decSizes.join()}`,
        );
      }
    }
  } finally {
    await cleanup();
  }
});

test('decryptStream reads stock `age -r` output (also with several recipients) and age-encryption output', async () => {
  const { dir, cleanup } = await tempDir();
  const other = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const otherKey = await loadOrCreateAgeIdentity(other.dir);
    for (const size of SIZES) {
      const plain = randomBytes(size);
      await writeFile(join(dir, 'plain'), plain);
      await sh(`age -r ${key.recipient} -o ${q(join(dir, 'one.age'))} ${q(join(dir, 'plain'))}`);
      assert.ok((await decrypt(await readFile(join(dir, 'one.age')), key.identity)).equals(plain), `stock, ${size}`);
      await sh(
        `age -r ${otherKey.recipient} -r ${key.recipient} -o ${q(join(dir, 'two.age'))} ${q(join(dir, 'plain'))}`,
      );
      assert.ok(
        (await decrypt(await readFile(join(dir, 'two.age')), key.identity, [50, 4096])).equals(plain),
        `stock, 2 recipients, ${size}`,
      );
      const e = new Encrypter();
      e.addRecipient(key.recipient);
      assert.ok(
        (await decrypt(Buffer.from(await e.encrypt(plain)), key.identity)).equals(plain),
        `age-encryption, ${size}`,
      );
    }
  } finally {
    await cleanup();
    await other.cleanup();
  }
});

test('decryptStream errors on a wrong key, any flipped byte, truncation and trailing bytes', async () => {
  const { dir, cleanup } = await tempDir();
  const other = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const otherKey = await loadOrCreateAgeIdentity(other.dir);
    const plain = randomBytes(2 * KiB64 + 1000);
    const enc = await encrypt(plain, key.recipient);
    assert.ok((await decrypt(enc, key.identity)).equals(plain));
    const headerLen = headerOf(enc).length;

    await assert.rejects(decrypt(enc, otherKey.identity), /no recipient stanza matches this identity/);

    // A flipped bit anywhere: header args, wrapped key, MAC, payload nonce, each chunk, each tag.
    const payloadStart = headerLen + 16;
    const spots = [
      25,
      40,
      70,
      headerLen - 5,
      headerLen + 3,
      payloadStart,
      payloadStart + KiB64 + 15,
      payloadStart + KiB64 + 16 + 100,
      enc.length - 1,
    ];
    for (const at of spots) {
      const bad = Buffer.from(enc);
      bad[at] = (bad[at] as number) ^ 0x01;
      await assert.rejects(decrypt(bad, key.identity), Error, `flipped byte at ${at}`);
      await writeFile(join(dir, 'bad.age'), bad);
      await assert.rejects(
        sh(`age -d -i ${q(key.path)} ${q(join(dir, 'bad.age'))} > /dev/null`),
        Error,
        `stock age, flipped byte at ${at}`,
      );
    }

    // Truncation anywhere, including exactly at a chunk boundary (a full chunk is then not a valid final one).
    for (const len of [
      0,
      10,
      headerLen - 1,
      headerLen,
      headerLen + 8,
      payloadStart,
      payloadStart + 15,
      payloadStart + KiB64 + 16,
      payloadStart + 2 * (KiB64 + 16),
      enc.length - 1,
    ]) {
      await assert.rejects(decrypt(enc.subarray(0, len), key.identity), /age: /, `truncated to ${len}`);
    }
    // Trailing bytes after the final chunk.
    await assert.rejects(decrypt(Buffer.concat([enc, Buffer.from([0])]), key.identity), /failed authentication/);
    await assert.rejects(decrypt(Buffer.concat([enc, randomBytes(KiB64 + 16)]), key.identity), /failed authentication/);

    // No plaintext of a chunk that fails authentication is ever emitted.
    const bad = Buffer.from(enc);
    bad[payloadStart + 10] = (bad[payloadStart + 10] as number) ^ 0x01;
    const dec = decryptStream(key.identity);
    let emitted = 0;
    const sink = new Writable({
      write(c: Buffer, _e, cb) {
        emitted += c.length;
        cb();
      },
    });
    await assert.rejects(pipeline(Readable.from([bad]), dec, sink));
    assert.equal(emitted, 0);
  } finally {
    await cleanup();
    await other.cleanup();
  }
});

/**
 * An independent minimal age writer (test-side), for shapes our encrypter never produces:
 * `chunks` are sealed in order, each with its own last-chunk flag; `extraStanzas` (raw header
 * text) go before the X25519 stanza, `shareText` rewrites its ephemeral share argument.
 */
function craft(
  recipient: string,
  chunks: Array<{ data: Buffer; last: boolean }>,
  opts: { extraStanzas?: string; shareText?: (s: string) => string } = {},
): Buffer {
  const b64 = (b: Buffer): string => b.toString('base64').replace(/=+$/, '');
  const hkdf = (ikm: Buffer, salt: Buffer, info: string): Buffer =>
    Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
  const aead = (key: Buffer, nonce: Buffer, pt: Buffer): Buffer => {
    const c = createCipheriv('chacha20-poly1305', key, nonce, { authTagLength: 16 });
    return Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]);
  };
  const fileKey = randomBytes(16);
  const rcpt = parseX25519Recipient(recipient);
  const eph = generateKeyPairSync('x25519');
  const share = Buffer.from(eph.publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const peer = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: rcpt.toString('base64url') }, format: 'jwk' });
  const shared = diffieHellman({ privateKey: eph.privateKey, publicKey: peer });
  const body = aead(
    hkdf(shared, Buffer.concat([share, rcpt]), 'age-encryption.org/v1/X25519'),
    Buffer.alloc(12),
    fileKey,
  );
  const shareText = (opts.shareText ?? ((x: string) => x))(b64(share));
  const noMac = `age-encryption.org/v1\n${opts.extraStanzas ?? ''}-> X25519 ${shareText}\n${b64(body)}\n---`;
  const mac = createHmac('sha256', hkdf(fileKey, Buffer.alloc(0), 'header'))
    .update(noMac)
    .digest();
  const nonce = randomBytes(16);
  const key = hkdf(fileKey, nonce, 'payload');
  const out: Buffer[] = [Buffer.from(`${noMac} ${b64(mac)}\n`), nonce];
  chunks.forEach((c, i) => {
    const n = Buffer.alloc(12);
    n.writeUIntBE(i, 5, 6);
    n[11] = c.last ? 1 : 0;
    out.push(aead(key, n, c.data));
  });
  return Buffer.concat(out);
}

test('STREAM rules: an empty final chunk after a full one, a missing final flag and a final flag mid-file are refused', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const full = randomBytes(KiB64);
    const good = craft(key.recipient, [
      { data: full, last: false },
      { data: Buffer.from('tail'), last: true },
    ]);
    assert.equal((await decrypt(good, key.identity)).toString('latin1'), full.toString('latin1') + 'tail'); // the crafted writer is right
    const emptyOnly = craft(key.recipient, [{ data: Buffer.alloc(0), last: true }]);
    assert.equal((await decrypt(emptyOnly, key.identity)).length, 0);

    const cases: Array<[string, Buffer]> = [
      [
        'empty final chunk after a full one',
        craft(key.recipient, [
          { data: full, last: false },
          { data: Buffer.alloc(0), last: true },
        ]),
      ],
      [
        'no final flag',
        craft(key.recipient, [
          { data: full, last: false },
          { data: Buffer.from('tail'), last: false },
        ]),
      ],
      [
        'final flag on a middle chunk',
        craft(key.recipient, [
          { data: full, last: true },
          { data: Buffer.from('tail'), last: true },
        ]),
      ],
      [
        'short middle chunk',
        craft(key.recipient, [
          { data: Buffer.from('x'), last: false },
          { data: Buffer.from('tail'), last: true },
        ]),
      ],
    ];
    const b64 = (n: number): string => randomBytes(n).toString('base64').replace(/=+$/, '');
    // Foreign stanzas with multi-line bodies (one a multiple of 48 bytes: empty final line) are skipped.
    const extra = `-> example.com/long a b\n${b64(100).replace(/(.{64})/g, '$1\n')}\n-> example.com/exact\n${b64(96).replace(/(.{64})/g, '$1\n')}\n`;
    const withExtra = craft(key.recipient, [{ data: Buffer.from('ok'), last: true }], { extraStanzas: extra });
    assert.equal((await decrypt(withExtra, key.identity)).toString(), 'ok');
    await writeFile(join(dir, 'extra.age'), withExtra);
    assert.equal(await sh(`age -d -i ${q(key.path)} ${q(join(dir, 'extra.age'))}`), 'ok');

    // Non-canonical base64 (non-zero trailing bits) decodes to the same key but must be refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const nonCanonical = (x: string): string => x.slice(0, -1) + alphabet[alphabet.indexOf(x.slice(-1)) ^ 1];
    cases.push([
      'non-canonical base64 share',
      craft(key.recipient, [{ data: Buffer.from('x'), last: true }], { shareText: nonCanonical }),
    ]);
    cases.push([
      'unterminated foreign stanza body',
      craft(key.recipient, [{ data: Buffer.from('x'), last: true }], {
        extraStanzas: `-> example.com/x\n${b64(48)}\n`,
      }),
    ]);
    for (const [name, file] of cases) {
      await assert.rejects(decrypt(file, key.identity), /age: /, name);
      await writeFile(join(dir, 'bad.age'), file);
      await assert.rejects(
        sh(`age -d -i ${q(key.path)} ${q(join(dir, 'bad.age'))} > /dev/null`),
        Error,
        `stock age: ${name}`,
      );
    }
  } finally {
    await cleanup();
  }
});

test('keys: spec vector, agreement with age-encryption, and clear refusals of other key types and bad input', async () => {
  // From the age spec (c2sp.org/age): this identity's recipient.
  const spec = parseX25519Identity('AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX');
  assert.ok(
    spec.publicKey.equals(parseX25519Recipient('age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj')),
  );
  for (let i = 0; i < 5; i++) {
    const identity = await generateIdentity();
    assert.ok(
      parseX25519Identity(identity).publicKey.equals(parseX25519Recipient(await identityToRecipient(identity))),
    );
  }
  const r = 'age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj';
  assert.throws(() => encryptStream(r.slice(0, -1) + 'q'), /invalid X25519 recipient: bad checksum/);
  assert.throws(() => encryptStream(r.toUpperCase().slice(0, 10) + r.slice(10)), /mixed case/);
  assert.throws(() => encryptStream('age1pq1' + 'q'.repeat(100)), /only X25519 recipients/);
  assert.throws(() => encryptStream('ssh-ed25519 AAAA'), /invalid X25519 recipient/);
  assert.throws(
    () => decryptStream('AGE-SECRET-KEY-PQ-1XX76JRALNLXDMEW0CRK45QMCCH4X06SE84UN3VPM33W6HWDX0H3SK3ZQFR'),
    /only X25519 identities/,
  );
  assert.throws(
    () => decryptStream('AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEQ'),
    /bad checksum/,
  );
  assert.throws(() => decryptStream(r), /only X25519 identities/);

  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    await assert.rejects(decrypt(Buffer.from('hello world, not an age file'), key.identity), /not an age v1 file/);
    await assert.rejects(decrypt(Buffer.alloc(0), key.identity), /empty input/);
    await writeFile(join(dir, 'plain'), 'armored');
    await sh(`age -a -r ${key.recipient} -o ${q(join(dir, 'a.age'))} ${q(join(dir, 'plain'))}`);
    await assert.rejects(decrypt(await readFile(join(dir, 'a.age')), key.identity), /armored/);
    // A header without our recipient type names what it found.
    const enc = await encrypt(Buffer.from('x'), key.recipient);
    const foreign = Buffer.from(enc.toString('latin1').replace('-> X25519 ', '-> example.com/other '), 'latin1');
    await assert.rejects(decrypt(foreign, key.identity), /no X25519 recipient stanza \(found: example\.com\/other\)/);
  } finally {
    await cleanup();
  }
});

test('encryptStream: header first, back-pressure honoured, large streams round-trip', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const enc = encryptStream(key.recipient);
    // Nobody reads: writes must report back-pressure after a bounded amount.
    let written = 0;
    while (enc.write(randomBytes(16 * 1024))) {
      written += 16 * 1024;
      assert.ok(written < 4 * 1024 * 1024, 'write() never signalled back-pressure');
    }
    const first = enc.read() as Buffer;
    assert.ok(first.toString('latin1').startsWith('age-encryption.org/v1\n-> X25519 '));
    enc.destroy();

    // 64 MiB through encrypt -> decrypt, generated on demand: same digest out as in.
    const total = 64 * 1024 * 1024 + 3;
    const block = randomBytes(1024 * 1024 + 7);
    const inHash = createHash('sha256');
    const outHash = createHash('sha256');
    let sent = 0;
    const source = new Readable({
      read() {
        if (sent >= total) return void this.push(null);
        const chunk = block.subarray(0, Math.min(block.length, total - sent));
        sent += chunk.length;
        inHash.update(chunk);
        this.push(chunk);
      },
    });
    await pipeline(
      source,
      encryptStream(key.recipient),
      new PassThrough(),
      decryptStream(key.identity),
      new Writable({
        write(c: Buffer, _e, cb) {
          outHash.update(c);
          cb();
        },
      }),
    );
    assert.equal(outHash.digest('hex'), inHash.digest('hex'));
  } finally {
    await cleanup();
  }
});
