import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pacedStorage, parseBandwidth, throttle } from '../../agent/throttle.ts';
import { SpoolStorage } from '../../agent/spool.ts';

test('bandwidth limits read like rclone: K/M/G are binary, a bare number is KiB/s, anything else is no limit', () => {
  assert.equal(parseBandwidth('512K'), 512 * 1024);
  assert.equal(parseBandwidth('10M'), 10 * 1024 * 1024);
  assert.equal(parseBandwidth('1.5G'), 1.5 * 1024 ** 3);
  assert.equal(parseBandwidth('100'), 100 * 1024);
  assert.equal(parseBandwidth(''), undefined);
  assert.equal(parseBandwidth('0'), undefined);
  assert.equal(parseBandwidth('fast'), undefined);
});

test('a throttled stream keeps every byte and cannot run faster than its rate', async () => {
  const data = Buffer.alloc(96 * 1024, 7);
  const chunks = Array.from({ length: 6 }, (_, i) => data.subarray(i * 16 * 1024, (i + 1) * 16 * 1024));
  const started = Date.now();
  const out = await buffer(Readable.from(chunks).pipe(throttle(192 * 1024)));
  assert.deepEqual(out, data);
  // 96 KiB at 192 KiB/s needs at least half a second, however fast the machine.
  assert.ok(Date.now() - started >= 480, `took ${Date.now() - started} ms`);
});

test('a paced storage instance stores every byte at no more than its rate, and a failing source still fails the upload with nothing kept', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'bp-paced-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const data = Buffer.alloc(96 * 1024, 3);
  const started = Date.now();
  const target = pacedStorage(new SpoolStorage(join(dir, 'a.bin')), 192 * 1024);
  await target.put('k', Readable.from([data.subarray(0, 48 * 1024), data.subarray(48 * 1024)]), { size: data.length });
  assert.ok(Date.now() - started >= 480, `took ${Date.now() - started} ms`);
  assert.deepEqual(await readFile(join(dir, 'a.bin')), data);

  const failing = new Readable({
    read() {
      this.destroy(new Error('source broke'));
    },
  });
  await assert.rejects(
    pacedStorage(new SpoolStorage(join(dir, 'b.bin')), 192 * 1024).put('k', failing),
    /source broke/,
  );
  await assert.rejects(readFile(join(dir, 'b.bin')), { code: 'ENOENT' });
});
