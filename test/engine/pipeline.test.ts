import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadOrCreateAgeIdentity } from '../../core/engine/stream/age-identity.ts';
import type { Compression } from '../../core/engine/stream/compression.ts';
import { runPipeline, type PipelineProgress } from '../../core/engine/stream/pipeline.ts';
import { createTarSource } from '../../core/engine/archive/tar-source.ts';
import { ProviderError, type StorageInstance } from '@backplane/plugin-api';
import { describeTree, filesUnder, localDisk, q, sh, tempDir } from './helpers.ts';

async function makeTree(root: string): Promise<void> {
  await mkdir(join(root, 'docs/deep'), { recursive: true });
  await mkdir(join(root, 'cache'));
  await writeFile(join(root, 'docs/readme.md'), '# hello\n'.repeat(1000));
  await writeFile(join(root, 'docs/deep/random.bin'), randomBytes(3 * 1024 * 1024 + 17));
  await writeFile(join(root, 'cache/skip.tmp'), 'temp');
  await writeFile(join(root, 'empty'), '');
  await symlink('docs/readme.md', join(root, 'readme-link'));
}

/** A broken target: takes `limit` bytes, then fails (a test double of a provider, not of the code under test). */
function breaksAfter(
  limit: number,
  kind: 'permanent' | 'transient' = 'permanent',
): StorageInstance & { taken: number } {
  const inst = {
    taken: 0,
    async put(_key: string, body: Readable): Promise<{ size: number }> {
      for await (const chunk of body) {
        inst.taken += (chunk as Buffer).length;
        if (inst.taken >= limit) break;
      }
      throw new ProviderError(kind, `broken target after ${inst.taken} bytes`);
    },
    get: () => Promise.reject(new Error('unused')),
    list: async function* () {
      /* nothing */
    },
    stat: () => Promise.resolve(undefined),
    delete: () => Promise.resolve(),
    testConnection: () => Promise.resolve({ success: false, message: 'broken' }),
  };
  return inst;
}

/** Fails transiently `times` times before reading anything, then delegates. */
function flaky(inner: StorageInstance, times: number): StorageInstance {
  let left = times;
  return {
    ...inner,
    put(key, body, meta) {
      if (left-- > 0) return Promise.reject(new ProviderError('transient', 'connection reset'));
      return inner.put(key, body, meta);
    },
  };
}

const restoreCmd: Record<Compression, string> = { zstd: 'zstd -d', gzip: 'gzip -d', none: 'cat' };

for (const [compression, encrypted] of [
  ['zstd', true],
  ['gzip', true],
  ['none', false],
  ['zstd', false],
] as const) {
  test(`tar -> ${compression}${encrypted ? ' -> age' : ''} -> two local_disk targets; stock tools restore the tree byte for byte`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const key = await loadOrCreateAgeIdentity(dir);
      const src = join(dir, 'src');
      await makeTree(src);
      await mkdir(join(dir, 't1'));
      await mkdir(join(dir, 't2'));
      const warnings: string[] = [];
      const tar = createTarSource({ paths: [src], excludes: ['*.tmp'], onWarning: (m) => warnings.push(m) });
      const progress: PipelineProgress[] = [];
      const objectKey =
        `task/2026/01/02/1-20260102T000000Z.tar` +
        `${compression === 'zstd' ? '.zst' : compression === 'gzip' ? '.gz' : ''}${encrypted ? '.age' : ''}`;
      const res = await runPipeline({
        source: tar.stream,
        compression,
        recipient: encrypted ? key.recipient : undefined,
        targets: [
          { id: 1, name: 'one', instance: await localDisk(join(dir, 't1')), key: objectKey },
          { id: 2, name: 'two', instance: await localDisk(join(dir, 't2')), key: objectKey },
        ],
        onProgress: (p) => progress.push(p),
      });
      const manifest = await tar.done;
      assert.deepEqual(warnings, []);
      assert.equal(res.status, 'success');
      assert.deepEqual(
        res.results.map((r) => [r.targetId, r.status, r.size, r.attempts]),
        [
          [1, 'success', res.size, 1],
          [2, 'success', res.size, 1],
        ],
      );
      const a = await readFile(join(dir, 't1', objectKey));
      const b = await readFile(join(dir, 't2', objectKey));
      assert.ok(a.equals(b), 'both copies identical');
      assert.equal(a.length, res.size);
      assert.equal(createHash('sha256').update(a).digest('hex'), res.checksum);
      // the raw tar holds every file's content plus headers and padding
      assert.ok(res.rawBytes > manifest.reduce((n, e) => n + e.size, 0));
      if (encrypted) assert.equal(a.subarray(0, 21).toString(), 'age-encryption.org/v1');
      const last = progress.at(-1);
      assert.equal(last?.bytesRead, res.rawBytes);
      assert.equal(last?.bytesStored, res.size);

      const out = join(dir, 'out');
      await mkdir(out);
      const decrypt = encrypted
        ? `age -d -i ${q(key.path)} ${q(join(dir, 't1', objectKey))}`
        : `cat ${q(join(dir, 't1', objectKey))}`;
      await sh(`${decrypt} | ${restoreCmd[compression]} | tar -x -C ${q(out)}`);
      const expected = await describeTree(src);
      expected.delete('cache/skip.tmp');
      assert.deepEqual(
        [...(await describeTree(join(out, src.slice(1)))).entries()].sort(),
        [...expected.entries()].sort(),
      );
    } finally {
      await cleanup();
    }
  });
}

test('a target failing mid-stream is dropped; the other copy is complete', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 'good'));
    const data = randomBytes(6 * 1024 * 1024);
    const broken = breaksAfter(1024 * 1024);
    const res = await runPipeline({
      source: Readable.from([data.subarray(0, 3_000_000), data.subarray(3_000_000)]),
      compression: 'none',
      targets: [
        { id: 1, name: 'good', instance: await localDisk(join(dir, 'good')), key: 'k/a.tar' },
        { id: 2, name: 'broken', instance: broken, key: 'k/a.tar' },
      ],
      replayWindow: 0,
    });
    assert.equal(res.status, 'partial');
    assert.deepEqual(
      res.results.map((r) => r.status),
      ['success', 'failed'],
    );
    assert.match(res.results[1]?.error ?? '', /broken target/);
    assert.ok(broken.taken >= 1024 * 1024 && broken.taken < data.length);
    const stored = await readFile(join(dir, 'good', 'k/a.tar'));
    assert.ok(stored.equals(data));
    assert.equal(res.checksum, createHash('sha256').update(data).digest('hex'));
  } finally {
    await cleanup();
  }
});

test('a transient failure within the replay window is retried from byte 0; past it, it is not', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    await mkdir(join(dir, 't2'));
    const data = randomBytes(2 * 1024 * 1024);
    const res = await runPipeline({
      source: Readable.from([data]),
      compression: 'zstd',
      targets: [
        { id: 1, name: 'flaky', instance: flaky(await localDisk(join(dir, 't1')), 1), key: 'a.zst' },
        { id: 2, name: 'steady', instance: await localDisk(join(dir, 't2')), key: 'a.zst' },
      ],
    });
    assert.equal(res.status, 'success');
    assert.deepEqual(
      res.results.map((r) => r.attempts),
      [2, 1],
    );
    assert.ok((await readFile(join(dir, 't1', 'a.zst'))).equals(await readFile(join(dir, 't2', 'a.zst'))));

    const late = await runPipeline({
      source: Readable.from(
        (function* () {
          for (let i = 0; i < 16; i++) yield randomBytes(256 * 1024);
        })(),
      ),
      compression: 'none',
      targets: [
        { id: 1, name: 'late', instance: breaksAfter(3 * 1024 * 1024, 'transient'), key: 'b' },
        { id: 2, name: 'steady', instance: await localDisk(join(dir, 't2')), key: 'b' },
      ],
      replayWindow: 1024 * 1024,
    });
    assert.equal(late.status, 'partial');
    assert.deepEqual(
      late.results.map((r) => [r.status, r.attempts]),
      [
        ['failed', 1],
        ['success', 1],
      ],
    );
  } finally {
    await cleanup();
  }
});

test('a target that fails only after taking the whole (small) stream is retried from byte 0', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    const inner = await localDisk(join(dir, 't1'));
    let calls = 0;
    // Reads every byte, then fails once: the end of input has already passed when it rejects.
    const lateFlaky: StorageInstance = {
      ...inner,
      async put(key, body, meta) {
        if (calls++ === 0) {
          for await (const _chunk of body) void _chunk;
          throw new ProviderError('transient', 'connection reset after the last byte');
        }
        return inner.put(key, body, meta);
      },
    };
    const data = randomBytes(64 * 1024);
    const res = await runPipeline({
      source: Readable.from([data]),
      compression: 'none',
      targets: [{ id: 1, name: 'late-flaky', instance: lateFlaky, key: 'c' }],
    });
    assert.equal(res.status, 'success');
    assert.equal(res.results[0]!.attempts, 2);
    assert.ok((await readFile(join(dir, 't1', 'c'))).equals(data));
  } finally {
    await cleanup();
  }
});

test('all targets failing destroys the source and leaves nothing', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    const good = await localDisk(join(dir, 't1'));
    // A local_disk target whose put fails mid-stream: wraps the real provider, cutting its body.
    const cut: StorageInstance = {
      ...good,
      put(key, body, meta) {
        let n = 0;
        const limited = new Readable({
          read() {
            /* driven below */
          },
        });
        body.on('data', (c: Buffer) => {
          n += c.length;
          if (n > 2 * 1024 * 1024) {
            body.destroy();
            limited.destroy(new Error('disk went away'));
          } else if (!limited.push(c)) body.pause();
        });
        limited._read = () => body.resume();
        body.on('end', () => limited.push(null));
        return good.put(key, limited, meta);
      },
    };
    let produced = 0;
    const source = new Readable({
      read() {
        produced++;
        if (produced > 10_000)
          this.push(null); // bounded even if the test fails
        else this.push(randomBytes(64 * 1024));
      },
    });
    const res = await runPipeline({
      source,
      compression: 'zstd',
      targets: [
        { id: 1, name: 'cut', instance: cut, key: 'x/y.zst' },
        { id: 2, name: 'broken', instance: breaksAfter(512 * 1024), key: 'x/y.zst' },
      ],
    });
    assert.equal(res.status, 'failed');
    assert.deepEqual(
      res.results.map((r) => r.status),
      ['failed', 'failed'],
    );
    assert.ok(source.destroyed, 'source destroyed');
    assert.ok(produced < 10_000, 'stopped early');
    assert.deepEqual(await filesUnder(join(dir, 't1')), []);
  } finally {
    await cleanup();
  }
});

test('an abort stops everything and leaves no object under any key', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    await mkdir(join(dir, 't2'));
    const ac = new AbortController();
    let produced = 0;
    const source = new Readable({
      read() {
        produced++;
        if (produced === 64) ac.abort(new Error('cancelled by user'));
        if (produced > 10_000) this.push(null);
        else this.push(randomBytes(64 * 1024));
      },
    });
    const key = await loadOrCreateAgeIdentity(dir);
    await assert.rejects(
      runPipeline({
        source,
        compression: 'zstd',
        recipient: key.recipient,
        targets: [
          { id: 1, name: 'one', instance: await localDisk(join(dir, 't1')), key: 'x/y.zst.age' },
          { id: 2, name: 'two', instance: await localDisk(join(dir, 't2')), key: 'x/y.zst.age' },
        ],
        signal: ac.signal,
      }),
      /cancelled by user|abort/i,
    );
    assert.ok(source.destroyed);
    assert.ok(produced < 10_000);
    assert.deepEqual(await filesUnder(join(dir, 't1')), []);
    assert.deepEqual(await filesUnder(join(dir, 't2')), []);
  } finally {
    await cleanup();
  }
});

test('a source error rejects and leaves nothing', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    await mkdir(join(dir, 't1'));
    const source = Readable.from(
      (async function* () {
        for (let i = 0; i < 20; i++) yield randomBytes(64 * 1024);
        throw new Error('pg_dump exited with 1');
      })(),
    );
    await assert.rejects(
      runPipeline({
        source,
        compression: 'gzip',
        targets: [{ id: 1, name: 'one', instance: await localDisk(join(dir, 't1')), key: 'db.sql.gz' }],
      }),
      /pg_dump exited/,
    );
    assert.deepEqual(await filesUnder(join(dir, 't1')), []);
  } finally {
    await cleanup();
  }
});
