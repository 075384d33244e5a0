import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { mkdir, symlink, writeFile, chmod, utimes } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createTarSource, isExcluded, type TarSourceOptions } from '../../core/engine/archive/tar-source.ts';
import { createGnuTarSource } from '../../core/engine/archive/gnu-tar-source.ts';
import { unquoteC } from '../../core/engine/archive/tar-index.ts';
import { describeTree, q, sh, tempDir } from './helpers.ts';

async function makeTree(root: string): Promise<void> {
  await mkdir(join(root, 'a/b'), { recursive: true });
  await mkdir(join(root, 'logs'));
  await mkdir(join(root, 'node_modules/x'), { recursive: true });
  await writeFile(join(root, 'a/one.txt'), 'one\n');
  await writeFile(join(root, 'a/b/two.bin'), Buffer.alloc(70_000, 7));
  await writeFile(join(root, 'empty'), '');
  await writeFile(join(root, 'logs/app.log'), 'log line\n');
  await writeFile(join(root, 'keep.log.txt'), 'kept\n');
  await writeFile(join(root, 'node_modules/x/index.js'), 'x\n');
  await chmod(join(root, 'a/one.txt'), 0o640);
  await symlink('a/one.txt', join(root, 'link-to-one'));
  await symlink('/nonexistent/target', join(root, 'dangling'));
  await utimes(join(root, 'a/b/two.bin'), new Date('2020-01-02T03:04:05Z'), new Date('2020-01-02T03:04:05Z'));
  // names that need quoting or would read as options
  await writeFile(join(root, '-starts-with-dash'), 'dash\n');
  await writeFile(join(root, 'quote " back\\slash\nnewline é'), 'odd\n');
}

/** Both producers of a file task's tar: GNU tar in its own process (used when installed) and the in-process fallback. */
const producers: Array<{
  name: string;
  create: (o: TarSourceOptions) => {
    stream: NodeJS.ReadableStream & import('node:stream').Readable;
    done: Promise<import('../../core/engine/archive/manifest-entry.ts').ManifestEntry[]>;
  };
}> = [
  { name: 'GNU tar', create: (o) => createGnuTarSource('tar', o) },
  { name: 'in-process', create: (o) => createTarSource(o) },
];

test('isExcluded: slash patterns match the absolute path, bare patterns the base name', () => {
  assert.equal(isExcluded('/srv/app/x.log', ['*.log']), true);
  assert.equal(isExcluded('/srv/app/x.log.txt', ['*.log']), false);
  assert.equal(isExcluded('/srv/app/node_modules', ['node_modules']), true);
  assert.equal(isExcluded('/srv/app/cache/a', ['/srv/app/cache']), false);
  assert.equal(isExcluded('/srv/app/cache', ['/srv/app/cache']), true);
  assert.equal(isExcluded('/srv/app/cache/deep/f', ['/srv/**/deep/*']), true);
});

for (const { name, create } of producers) {
  test(`${name}: tar of a tree: excludes, symlinks, modes, mtime; stock tar restores it; manifest lists every entry`, async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const src = join(dir, 'src');
      await makeTree(src);
      const warnings: string[] = [];
      const tar = create({ paths: [src], excludes: ['*.log', 'node_modules'], onWarning: (m) => warnings.push(m) });
      const file = join(dir, 'out.tar');
      await pipeline(tar.stream, createWriteStream(file));
      const manifest = await tar.done;
      assert.deepEqual(warnings, []);
      const out = join(dir, 'out');
      await mkdir(out);
      await sh(`tar -x -C ${q(out)} -f ${q(file)}`);
      const restored = await describeTree(join(out, src.slice(1)));
      const expected = await describeTree(src);
      for (const k of [...expected.keys()])
        if (k.endsWith('.log') || k.startsWith('logs/') || k.startsWith('node_modules')) expected.delete(k);
      expected.set('logs', expected.get('logs') ?? ''); // the folder itself is kept, its .log file excluded
      assert.deepEqual([...restored.entries()].sort(), [...expected.entries()].sort());
      assert.ok(!restored.has('node_modules'));

      const byPath = new Map(manifest.map((e) => [e.path, e]));
      const two = byPath.get(`${src.slice(1)}/a/b/two.bin`);
      assert.deepEqual(two && { size: two.size, type: two.type, mtime: two.mtime.toISOString() }, {
        size: 70_000,
        type: 'file',
        mtime: '2020-01-02T03:04:05.000Z',
      });
      assert.equal(byPath.get(`${src.slice(1)}/a/one.txt`)?.mode, 0o640);
      assert.equal(byPath.get(`${src.slice(1)}/link-to-one`)?.type, 'symlink');
      assert.equal(byPath.get(`${src.slice(1)}/link-to-one`)?.linkname, 'a/one.txt');
      assert.equal(byPath.get(`${src.slice(1)}/a`)?.type, 'directory');
      assert.equal(manifest.length, restored.size + 1); // + the source folder itself
      // stock tar lists the same names, absolute path without the leading slash
      const listed = (await sh(`tar -t --quoting-style=c -f ${q(file)}`))
        .trim()
        .split('\n')
        .map((n) => unquoteC(n.slice(1, -1)).replace(/\/$/, ''));
      assert.deepEqual(listed.sort(), manifest.map((e) => e.path).sort());
    } finally {
      await cleanup();
    }
  });

  test(`${name}: a FIFO, a socket and a missing path are skipped with warnings; the tar stays valid`, async () => {
    const { dir, cleanup } = await tempDir();
    const server = createServer();
    try {
      const src = join(dir, 'src');
      await mkdir(src);
      await writeFile(join(src, 'before.txt'), 'before\n');
      await writeFile(join(src, 'zz-after.txt'), 'after\n');
      await sh(`mkfifo ${q(join(src, 'pipe'))}`);
      await new Promise<void>((res) => server.listen(join(src, 'sock'), res));
      const warnings: string[] = [];
      const tar = create({ paths: [src, join(dir, 'missing')], onWarning: (m) => warnings.push(m) });
      const file = join(dir, 'out.tar');
      await pipeline(tar.stream, createWriteStream(file));
      await tar.done;
      assert.equal(warnings.length, 3, warnings.join('\n'));
      assert.ok(warnings.some((w) => w.includes('pipe') && w.includes('FIFO')));
      assert.ok(warnings.some((w) => w.includes('sock') && w.includes('socket')));
      assert.ok(warnings.some((w) => w.includes('missing') && w.includes('ENOENT')));
      const listed = (await sh(`tar -t -f ${q(file)}`)).trim().split('\n');
      assert.deepEqual(listed.map((n) => n.replace(/\/$/, '').slice(src.length - 1)).sort(), [
        '',
        '/before.txt',
        '/zz-after.txt',
      ]);
      const out = join(dir, 'out');
      await mkdir(out);
      await sh(`tar -x -C ${q(out)} -f ${q(file)}`);
      assert.equal((await describeTree(join(out, src.slice(1)))).get('zz-after.txt')?.startsWith('file'), true);
    } finally {
      server.close();
      await cleanup();
    }
  });

  test(`${name}: aborting a tar source in the middle of a large file ends it with the reason and nothing else (no stray error event)`, async () => {
    const { dir, cleanup } = await tempDir();
    await writeFile(join(dir, 'large.bin'), Buffer.alloc(24 * 1024 * 1024, 1));
    const stray: unknown[] = [];
    const onStray = (err: unknown): void => {
      stray.push(err);
    };
    process.on('uncaughtException', onStray);
    try {
      const abort = new AbortController();
      const tar = create({ paths: [join(dir, 'large.bin')], signal: abort.signal });
      const consumed = pipeline(
        tar.stream,
        async function* (source) {
          for await (const chunk of source) {
            yield chunk;
            abort.abort(new Error('stopped by the test'));
          }
        },
        async function* (source) {
          for await (const _ of source) {
            /* drain */
          }
        },
        { signal: abort.signal },
      );
      await assert.rejects(consumed);
      await assert.rejects(tar.done);
      await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(stray, []);
    } finally {
      process.off('uncaughtException', onStray);
      await cleanup();
    }
  });
}
