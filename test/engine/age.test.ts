import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { loadOrCreateAgeIdentity } from '../../core/engine/stream/age-identity.ts';
import { decryptStream, encryptStream } from '../../core/engine/stream/encryption.ts';
import { q, sh, tempDir } from './helpers.ts';

test('backup.agekey: created 0600 in the standard format, loaded again unchanged', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const first = await loadOrCreateAgeIdentity(dir);
    assert.equal(first.created, true);
    assert.equal(first.path, join(dir, 'backup.agekey'));
    assert.match(first.identity, /^AGE-SECRET-KEY-1[0-9A-Z]+$/);
    assert.match(first.recipient, /^age1[0-9a-z]+$/);
    assert.equal((await stat(first.path)).mode & 0o777, 0o600);
    const text = await readFile(first.path, 'utf8');
    assert.match(text, new RegExp(`^# created: .*\\n# public key: ${first.recipient}\\n${first.identity}\\n$`));
    const again = await loadOrCreateAgeIdentity(dir);
    assert.equal(again.created, false);
    assert.equal(again.identity, first.identity);
    assert.equal(again.recipient, first.recipient);
    // the stock tool derives the same public key from the file
    assert.equal((await sh(`age-keygen -y ${q(first.path)}`)).trim(), first.recipient);
  } finally {
    await cleanup();
  }
});

test('encryptStream output is decrypted by stock `age -d -i backup.agekey`, and stock output by decryptStream', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const key = await loadOrCreateAgeIdentity(dir);
    const plain = randomBytes(300_000); // several 64 KiB age chunks plus a partial one
    await writeFile(join(dir, 'plain'), plain);
    await pipeline(Readable.from([plain]), encryptStream(key.recipient), createWriteStream(join(dir, 'enc.age')));
    await sh(`age -d -i ${q(key.path)} ${q(join(dir, 'enc.age'))} | cmp - ${q(join(dir, 'plain'))}`);

    await sh(`age -r ${key.recipient} -o ${q(join(dir, 'stock.age'))} ${q(join(dir, 'plain'))}`);
    const back = await buffer(createReadStream(join(dir, 'stock.age')).pipe(decryptStream(key.identity)));
    assert.ok(back.equals(plain));

    const empty = await buffer(Readable.from([Buffer.alloc(0)]).pipe(encryptStream(key.recipient)));
    assert.equal((await buffer(Readable.from([empty]).pipe(decryptStream(key.identity)))).length, 0);
  } finally {
    await cleanup();
  }
});

test('decryptStream refuses a wrong identity and tampered bytes', async () => {
  const a = await tempDir();
  const b = await tempDir();
  try {
    const ka = await loadOrCreateAgeIdentity(a.dir);
    const kb = await loadOrCreateAgeIdentity(b.dir);
    const enc = await buffer(Readable.from([randomBytes(100_000)]).pipe(encryptStream(ka.recipient)));
    await assert.rejects(buffer(Readable.from([enc]).pipe(decryptStream(kb.identity))));
    const tampered = Buffer.from(enc);
    tampered[tampered.length - 100] = (tampered[tampered.length - 100] ?? 0) ^ 1;
    await assert.rejects(buffer(Readable.from([tampered]).pipe(decryptStream(ka.identity))));
  } finally {
    await a.cleanup();
    await b.cleanup();
  }
});

test('identities are generated natively; their recipients agree with stock age-keygen -y and the age-encryption package', async () => {
  const { generateIdentity, identityToRecipient } = await import('../../core/engine/stream/age-identity.ts');
  const reference = await import('age-encryption');
  const { dir, cleanup } = await tempDir();
  try {
    for (let i = 0; i < 5; i++) {
      const identity = generateIdentity();
      assert.match(identity, /^AGE-SECRET-KEY-1[0-9A-Z]{58}$/);
      const recipient = identityToRecipient(identity);
      assert.equal(recipient, await reference.identityToRecipient(identity));
      await writeFile(join(dir, `k${i}`), `${identity}\n`);
      assert.equal((await sh(`age-keygen -y ${q(join(dir, `k${i}`))}`)).trim(), recipient);
    }
    const theirs = await reference.generateIdentity();
    assert.equal(identityToRecipient(theirs), await reference.identityToRecipient(theirs));
  } finally {
    await cleanup();
  }
});

test('a backup.agekey written by stock age-keygen is read: same recipient, and stock `age -r` output decrypts', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const path = join(dir, 'backup.agekey');
    await sh(`age-keygen -o ${q(path)} 2>/dev/null`);
    const key = await loadOrCreateAgeIdentity(dir);
    assert.equal(key.created, false);
    assert.equal(key.recipient, (await sh(`age-keygen -y ${q(path)}`)).trim());
    await writeFile(join(dir, 'plain'), 'from stock age');
    await sh(`age -r ${key.recipient} -o ${q(join(dir, 'p.age'))} ${q(join(dir, 'plain'))}`);
    const out = await buffer(createReadStream(join(dir, 'p.age')).pipe(decryptStream(key.identity)));
    assert.equal(out.toString(), 'from stock age');
  } finally {
    await cleanup();
  }
});
