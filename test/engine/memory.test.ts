import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { loadOrCreateAgeIdentity } from '../../core/engine/stream/age-identity.ts';
import { runPipeline } from '../../core/engine/stream/pipeline.ts';
import { localDisk, tempDir } from './helpers.ts';

const TOTAL = 256 * 1024 * 1024;
const CHUNK = 256 * 1024;

test('256 MiB through zstd + age to two targets keeps RSS growth bounded', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    await mkdir(join(dir, 't2'));
    const key = await loadOrCreateAgeIdentity(dir);
    // Incompressible data, so every stage really carries 256 MiB.
    const block = randomBytes(4 * 1024 * 1024);
    let sent = 0;
    const source = new Readable({
      read() {
        if (sent >= TOTAL) return void this.push(null);
        const off = (sent / CHUNK) % (block.length / CHUNK);
        const chunk = Buffer.from(block.subarray(off * CHUNK, (off + 1) * CHUNK));
        chunk.writeUInt32BE(sent / CHUNK, 0);
        chunk.writeUInt32BE(((sent / CHUNK) * 2654435761) >>> 0, 100_000);
        sent += CHUNK;
        this.push(chunk);
      },
    });
    globalThis.gc?.();
    const baseline = process.memoryUsage.rss();
    let peak = baseline;
    const sample = (): void => {
      peak = Math.max(peak, process.memoryUsage.rss());
    };
    const timer = setInterval(sample, 20);
    let res;
    try {
      res = await runPipeline({
        source,
        compression: 'zstd',
        recipient: key.recipient,
        targets: [
          { id: 1, name: 'one', instance: await localDisk(join(dir, 't1')), key: 'big.tar.zst.age' },
          { id: 2, name: 'two', instance: await localDisk(join(dir, 't2')), key: 'big.tar.zst.age' },
        ],
        onProgress: sample,
        progressIntervalMs: 100,
      });
    } finally {
      clearInterval(timer);
    }
    sample();
    assert.equal(res.status, 'success');
    assert.equal(res.rawBytes, TOTAL);
    assert.equal((await stat(join(dir, 't1', 'big.tar.zst.age'))).size, res.size);
    assert.ok(res.size > TOTAL * 0.9, 'the data was not compressible, as intended');
    const growth = (peak - baseline) / 1024 / 1024;
    console.log(`# RSS growth ${growth.toFixed(0)} MiB`);
    assert.ok(growth < 192, `RSS grew by ${growth.toFixed(0)} MiB`);
  } finally {
    await cleanup();
  }
});
