import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  createGnuTarSource,
  gnuTarProgram,
  spawnTar,
  tarCompressor,
} from '../../core/engine/archive/gnu-tar-source.ts';
import { modeBits, parseIndexLine, unquoteC } from '../../core/engine/archive/tar-index.ts';
import { q, sh, tempDir } from './helpers.ts';

test('tar listing lines: names unquoted (escapes, octal UTF-8), modes with special bits, mtimes in UTC, links', () => {
  assert.equal(unquoteC('a\\"b\\\\c\\nd\\303\\251'), 'a"b\\c\nd\u00e9');
  assert.equal(modeBits('rwsr-sr-t'), 0o7755);
  assert.equal(modeBits('rwSr-Sr-T'), 0o7644);
  assert.equal(modeBits('rw-r-----'), 0o640);
  assert.deepEqual(parseIndexLine('-rw-r--r-- root/root     70000 2020-01-02 03:04:05           "srv/a b/two.bin"'), {
    path: 'srv/a b/two.bin',
    size: 70000,
    mtime: new Date('2020-01-02T03:04:05Z'),
    mode: 0o644,
    type: 'file',
  });
  assert.deepEqual(parseIndexLine('drwxr-x--- 1000/1000 0 2026-11-26 14:01:04.026156925 "srv/dir/"'), {
    path: 'srv/dir',
    size: 0,
    mtime: new Date('2026-11-26T14:01:04.026Z'),
    mode: 0o750,
    type: 'directory',
  });
  assert.deepEqual(parseIndexLine('lrwxrwxrwx ad user/domain users 0 2026-11-26 14:01:04.5 "srv/l\\"k" -> "../x y"'), {
    path: 'srv/l"k',
    size: 0,
    mtime: new Date('2026-11-26T14:01:04.500Z'),
    mode: 0o777,
    type: 'symlink',
    linkname: '../x y',
  });
  assert.equal(parseIndexLine('prw-r--r-- root/root 0 2026-11-26 14:01:04.0 "srv/fifo"'), null);
  assert.equal(parseIndexLine('tar: "srv/x": Warning: Cannot stat: No such file or directory'), null);
});

test('GNU tar is found when installed, and BACKPLANE_TAR_BINARY=none turns it off', () => {
  assert.equal(gnuTarProgram({}), 'tar');
  assert.equal(gnuTarProgram({ BACKPLANE_TAR_BINARY: 'none' }), undefined);
  assert.equal(gnuTarProgram({ BACKPLANE_TAR_BINARY: '/nonexistent/tar' }), undefined);
  assert.deepEqual(tarCompressor({ command: 'zstd', args: ['-3', '-c'] }), { command: 'zstd', args: ['-3', '-c'] });
  assert.equal(tarCompressor({ command: '/opt/my tools/zstd', args: ['-3'] }), undefined);
});

test('tar (and the compressor it starts) runs in a tool environment: its locale and zone, nothing of Backplane’s', async (t) => {
  process.env.BACKPLANE_TEST_CANARY = 'canary-value';
  process.env.TAR_OPTIONS = '--exclude=*';
  t.after(() => {
    delete process.env.BACKPLANE_TEST_CANARY;
    delete process.env.TAR_OPTIONS;
  });
  // `env` in tar's place prints the environment tar would get.
  const child = spawnTar('env', []);
  child.stdin!.end();
  let out = '';
  for await (const chunk of child.stdout!) out += String(chunk);
  const names = out.split('\n').map((line) => line.slice(0, line.indexOf('=')));
  assert.ok(out.includes('LC_ALL=C\n') && out.includes('TZ=UTC\n'), out);
  assert.ok(names.includes('PATH'));
  assert.ok(!names.includes('BACKPLANE_TEST_CANARY') && !names.includes('TAR_OPTIONS'), out);
});

test('compressed by the program tar starts: stock zstd and tar read it back; raw size is the tar length', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const src = join(dir, 'src');
    await mkdir(join(src, 'sub'), { recursive: true });
    await writeFile(join(src, 'sub/a.txt'), 'hello\n'.repeat(10_000));
    await writeFile(join(src, 'b.bin'), Buffer.alloc(300_000, 3));
    const entries: string[] = [];
    const tar = createGnuTarSource('tar', {
      paths: [src],
      onEntry: (e) => entries.push(`${e.type} ${e.path} ${e.size}`),
      compressor: { command: 'zstd', args: ['-3', '-q', '-c', '--check'] },
    });
    assert.equal(tar.compressed, true);
    const file = join(dir, 'out.tar.zst');
    await pipeline(tar.stream, createWriteStream(file));
    await tar.done;
    const rel = src.slice(1);
    assert.deepEqual(
      entries.sort(),
      [
        `directory ${rel} 0`,
        `directory ${rel}/sub 0`,
        `file ${rel}/b.bin 300000`,
        `file ${rel}/sub/a.txt 60000`,
      ].sort(),
    );
    await sh(`zstd -d -q -c ${q(file)} > ${q(join(dir, 'out.tar'))}`);
    assert.equal(tar.rawBytes(), (await stat(join(dir, 'out.tar'))).size);
    const listed = (await sh(`tar -t -f ${q(join(dir, 'out.tar'))}`))
      .trim()
      .split('\n')
      .map((n) => n.replace(/\/$/, ''));
    assert.deepEqual(listed.sort(), [rel, `${rel}/b.bin`, `${rel}/sub`, `${rel}/sub/a.txt`].sort());
  } finally {
    await cleanup();
  }
});

/** The output must fail, never end cleanly, when tar or its compressor fails: a short archive is no backup. */
async function expectFailure(
  program: string,
  compressor: { command: string; args: string[] } | undefined,
  src: string,
  pattern: RegExp,
): Promise<void> {
  const tar = createGnuTarSource(program, { paths: [src], compressor });
  const chunks: Buffer[] = [];
  await assert.rejects(
    pipeline(tar.stream, async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) chunks.push(chunk);
    }),
    pattern,
  );
  await assert.rejects(tar.done, pattern);
}

test('a tar that exits with 2 after writing some bytes, or a compressor that fails, errors the stream and done', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const src = join(dir, 'src');
    await mkdir(src);
    await writeFile(join(src, 'a.txt'), 'a\n');
    const fake = join(dir, 'fake-tar');
    await writeFile(fake, '#!/bin/sh\ncat > /dev/null\nprintf partial\necho "tar: disk on fire" >&2\nexit 2\n');
    await chmod(fake, 0o755);
    await expectFailure(fake, undefined, src, /tar exited with 2: tar: disk on fire/);
    await expectFailure('tar', { command: 'false', args: [] }, src, /tar exited with 2/);
  } finally {
    await cleanup();
  }
});
