import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { COMPRESSIONS, compressor, decompressor } from '../../core/engine/stream/compression.ts';
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
    for (const [c, tool] of [
      ['zstd', 'zstd -d -c'],
      ['gzip', 'gzip -d -c'],
    ] as const) {
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

test('zstd through the installed program and in-process are interchangeable; a failing filter errors instead of ending', async () => {
  const { toolStream } = await import('@backplane/plugin-api');
  const { zstdProgram } = await import('../../core/engine/stream/compression.ts');
  const data = Buffer.concat([randomBytes(300_000), Buffer.alloc(300_000, 7)]);
  const roundTrip = async (compressEnv: string | undefined, decompressEnv: string | undefined): Promise<Buffer> => {
    const saved = process.env.BACKPLANE_ZSTD_BINARY;
    const set = (v: string | undefined) => {
      if (v === undefined) delete process.env.BACKPLANE_ZSTD_BINARY;
      else process.env.BACKPLANE_ZSTD_BINARY = v;
    };
    try {
      set(compressEnv);
      const chunks: Buffer[] = [];
      await pipeline(Readable.from([data]), compressor('zstd'), async function* (src) {
        for await (const c of src) chunks.push(c as Buffer);
      });
      set(decompressEnv);
      const out: Buffer[] = [];
      await pipeline(Readable.from([Buffer.concat(chunks)]), decompressor('zstd'), async function* (src) {
        for await (const c of src) out.push(c as Buffer);
      });
      return Buffer.concat(out);
    } finally {
      set(saved);
    }
  };
  assert.equal(zstdProgram({ BACKPLANE_ZSTD_BINARY: 'none' }), undefined);
  assert.equal(zstdProgram({}), 'zstd', 'the zstd program is installed here');
  assert.ok((await roundTrip(undefined, 'none')).equals(data), 'program -> in-process');
  assert.ok((await roundTrip('none', undefined)).equals(data), 'in-process -> program');
  assert.ok((await roundTrip('none', 'none')).equals(data));
  await assert.rejects(
    pipeline(
      Readable.from([Buffer.from('not zstd at all')]),
      toolStream('zstd', ['-d', '-q', '-c']),
      async function* (src) {
        for await (const _ of src) void _;
      },
    ),
    /zstd exited with/,
  );
});
