import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { COMPRESSIONS, compressor, decompressor } from '../../core/engine/compression.ts';
import { q, sh, tempDir } from './helpers.ts';

const sample = Buffer.concat([randomBytes(300_000), Buffer.alloc(500_000, 'abc'), randomBytes(1000)]);

for (const c of COMPRESSIONS) {
  test(`${c}: round trip through compressor and decompressor`, async () => {
    const packed = await buffer(Readable.from([sample]).pipe(compressor(c)));
    if (c !== 'none') assert.ok(packed.length < sample.length, 'compresses the repetitive part');
    const back = await buffer(Readable.from([packed]).pipe(decompressor(c)));
    assert.ok(back.equals(sample));
  });
}

test('zstd and gzip output is read by the stock tools; levels apply', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    for (const [c, tool] of [['zstd', 'zstd -d -c'], ['gzip', 'gzip -d -c']] as const) {
      const file = join(dir, `sample.${c}`);
      await pipeline(Readable.from([sample]), compressor(c), createWriteStream(file));
      await writeFile(join(dir, 'orig'), sample);
      await sh(`${tool} < ${q(file)} | cmp - ${q(join(dir, 'orig'))}`);
    }
    const fast = await buffer(Readable.from([sample]).pipe(compressor('zstd', 1)));
    const strong = await buffer(Readable.from([sample]).pipe(compressor('zstd', 19)));
    assert.ok(strong.length <= fast.length);
  } finally {
    await cleanup();
  }
});
