import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync, zstdDecompressSync } from 'node:zlib';
import { stagedRestore, type RestoreSource } from '../../core/engine/restore/staged-restore.ts';
import { tempDir } from '../helpers/build.ts';

const run = promisify(execFile);
const zstdSync = (b: Buffer): Buffer => zstdDecompressSync(b);

async function tarOf(dir: string): Promise<Buffer> {
  const { stdout } = await run('tar', ['-c', '-f', '-', '-C', dir, '.'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** The archive's bytes, then (after tar has seen its end blocks) a failure: a checksum found wrong at the very end. */
function failingAtTheEnd(bytes: Buffer, extra: Buffer): Readable {
  return new Readable({
    read() {
      this.push(bytes);
      this.push(extra);
      this.destroy(new Error('SHA-256 differs from the record'));
    },
  });
}

for (const gnu of [true, false]) {
  const mode = gnu ? 'GNU tar' : 'in-process';
  const around = async <T>(work: () => Promise<T>): Promise<T> => {
    if (!gnu) process.env.BACKPLANE_TAR_BINARY = 'none';
    try {
      return await work();
    } finally {
      delete process.env.BACKPLANE_TAR_BINARY;
    }
  };

  test(`${mode}: a failure found after the archive's last entry still fails the restore, and nothing is moved into place`, async (t) => {
    const base = await tempDir(t);
    await mkdir(join(base, 'src/sub'), { recursive: true });
    await writeFile(join(base, 'src/sub/a.txt'), 'new');
    const bytes = await tarOf(join(base, 'src'));
    const root = join(base, 'root');
    await mkdir(root);
    await writeFile(join(root, 'keep.txt'), 'mine');
    await assert.rejects(
      around(() => stagedRestore(failingAtTheEnd(bytes, Buffer.alloc(64 * 1024)), { root })),
      /SHA-256 differs/,
    );
    assert.deepEqual(await readdir(root), ['keep.txt']);
  });

  test(`${mode}: a whole archive with trailing padding restores, over existing files, into new and existing folders`, async (t) => {
    const base = await tempDir(t);
    await mkdir(join(base, 'src/old'), { recursive: true });
    await mkdir(join(base, 'src/new/deep'), { recursive: true });
    await writeFile(join(base, 'src/old/a.txt'), 'from the backup');
    await writeFile(join(base, 'src/new/deep/b.txt'), 'b');
    const bytes = Buffer.concat([await tarOf(join(base, 'src')), Buffer.alloc(20 * 1024)]);
    const root = join(base, 'root');
    await mkdir(join(root, 'old'), { recursive: true });
    await writeFile(join(root, 'old/a.txt'), 'changed since');
    await writeFile(join(root, 'old/other.txt'), 'not in the backup');
    const result = await around(() => stagedRestore(Readable.from([bytes]), { root }));
    assert.equal(await readFile(join(root, 'old/a.txt'), 'utf8'), 'from the backup');
    assert.equal(await readFile(join(root, 'old/other.txt'), 'utf8'), 'not in the backup');
    assert.equal(await readFile(join(root, 'new/deep/b.txt'), 'utf8'), 'b');
    assert.equal(result.checked.entries, 6); // ., old, old/a.txt, new, new/deep, new/deep/b.txt
    assert.deepEqual((await readdir(root)).sort(), ['new', 'old'], 'no staging folder is left');
  });
}

/** A restore source as the record's reader gives it: the stored bytes, compressed, or decompressed here. */
function sourceOf(compressed: Buffer, compression: 'zstd' | 'gzip', decompress: (b: Buffer) => Buffer): RestoreSource {
  return { compression, open: (decompressed) => Readable.from([decompressed ? decompress(compressed) : compressed]) };
}

async function zstdOf(bytes: Buffer): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-zstd-'));
  try {
    await writeFile(join(dir, 'a.tar'), bytes);
    await run('zstd', ['-q', '--check', join(dir, 'a.tar'), '-o', join(dir, 'a.tar.zst')]);
    return await readFile(join(dir, 'a.tar.zst'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('GNU tar: a zstd archive is decompressed by the zstd program beside tar and restores whole', async (t) => {
  const base = await tempDir(t);
  await mkdir(join(base, 'src/sub'), { recursive: true });
  await writeFile(join(base, 'src/sub/a.txt'), 'x'.repeat(300_000));
  await writeFile(join(base, 'src/b.bin'), Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 251)));
  const archive = await zstdOf(await tarOf(join(base, 'src')));
  const opened: boolean[] = [];
  const source: RestoreSource = {
    compression: 'zstd',
    open: (decompressed) => {
      opened.push(decompressed);
      return Readable.from([archive]);
    },
  };
  const root = join(base, 'root');
  const result = await stagedRestore(source, { root });
  assert.deepEqual(opened, [false], 'the compressed bytes were asked for: zstd, not Node, decompresses');
  assert.equal(await readFile(join(root, 'sub/a.txt'), 'utf8'), 'x'.repeat(300_000));
  assert.deepEqual(await readFile(join(root, 'b.bin')), await readFile(join(base, 'src/b.bin')));
  assert.equal(result.checked.entries, 4); // ., sub, sub/a.txt, b.bin
});

test("GNU tar: a zstd archive damaged inside fails with zstd's reason, and nothing is moved into place", async (t) => {
  const base = await tempDir(t);
  await mkdir(join(base, 'src'), { recursive: true });
  await writeFile(join(base, 'src/a.txt'), 'payload '.repeat(50_000));
  const archive = await zstdOf(await tarOf(join(base, 'src')));
  archive[archive.length - 2]! ^= 0xff; // inside the frame's content checksum
  const root = join(base, 'root');
  await mkdir(root);
  await writeFile(join(root, 'keep.txt'), 'mine');
  await assert.rejects(
    stagedRestore(sourceOf(archive, 'zstd', zstdSync), { root }),
    /zstd exited with \d+: .*(checksum|corrupt)/i,
  );
  assert.deepEqual(await readdir(root), ['keep.txt']);
});

test('GNU tar: input that is no zstd at all fails the restore without waiting on either program', async (t) => {
  const base = await tempDir(t);
  const root = join(base, 'root');
  await assert.rejects(
    stagedRestore(sourceOf(Buffer.alloc(256 * 1024, 7), 'zstd', zstdSync), { root }),
    /(zstd|tar) exited with/,
  );
  assert.deepEqual(await readdir(root), []);
});

test('GNU tar: a gzip archive is decompressed in the master (zlib) and restores whole', async (t) => {
  const base = await tempDir(t);
  await mkdir(join(base, 'src'), { recursive: true });
  await writeFile(join(base, 'src/a.txt'), 'gzip me '.repeat(10_000));
  const archive = gzipSync(await tarOf(join(base, 'src')));
  const opened: boolean[] = [];
  const source: RestoreSource = {
    compression: 'gzip',
    open: (decompressed) => {
      opened.push(decompressed);
      return Readable.from([decompressed ? gunzipSync(archive) : archive]);
    },
  };
  const root = join(base, 'root');
  await stagedRestore(source, { root });
  assert.deepEqual(opened, [true]);
  assert.equal(await readFile(join(root, 'a.txt'), 'utf8'), 'gzip me '.repeat(10_000));
});
