import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { stagedRestore } from '../../core/recovery/staged-restore.ts';
import { tempDir } from '../helpers/build.ts';

const run = promisify(execFile);

async function tarOf(dir: string): Promise<Buffer> {
  const { stdout } = await run('tar', ['-c', '-f', '-', '-C', dir, '.'], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
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
    await assert.rejects(around(() => stagedRestore(failingAtTheEnd(bytes, Buffer.alloc(64 * 1024)), { root })), /SHA-256 differs/);
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
