import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { link, lstat, mkdir, readFile, readdir, readlink, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import tar from 'tar-stream';
import { safeExtract } from '../../core/engine/restore/safe-extract.ts';
import { stagedRestore } from '../../core/engine/restore/staged-restore.ts';
import { tempDir } from '../helpers/build.ts';

type Entry = { name: string; type?: 'file' | 'directory' | 'symlink' | 'link'; linkname?: string; body?: string };

/** A hostile archive, built entry by entry as an attacker would write it. */
function archive(entries: Entry[]): Readable {
  const pack = tar.pack();
  for (const e of entries) {
    if ((e.type ?? 'file') === 'file') pack.entry({ name: e.name, type: 'file' }, e.body ?? '');
    else pack.entry({ name: e.name, type: e.type, ...(e.linkname !== undefined ? { linkname: e.linkname } : {}) });
  }
  pack.finalize();
  return Readable.from(pack);
}

/**
 * A scratch area: `root` is the extraction root, `outside` a sibling folder holding one file an
 * attacker would like to reach. `outsideTree()` lists everything in the scratch area that is not
 * under the root, so a test can assert that not even an empty folder appeared there.
 */
async function scratch(
  t: TestContext,
): Promise<{ base: string; root: string; outside: string; outsideTree: () => Promise<string[]> }> {
  const base = await tempDir(t);
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, 'keep.txt'), 'original');
  const outsideTree = async (): Promise<string[]> => {
    const found: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const d of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, d.name);
        if (path === root) continue;
        const st = await lstat(path);
        found.push(
          `${relative(base, path)}${st.isDirectory() ? '/' : ''}${st.isFile() ? `=${await readFile(path, 'utf8')}` : ''}`,
        );
        if (st.isDirectory()) await walk(path);
      }
    };
    await walk(base);
    return found.sort();
  };
  return { base, root, outside, outsideTree };
}

const UNTOUCHED = ['outside/', 'outside/keep.txt=original'];

/** Both ways an archive reaches the disk: extraction in place, and a staged restore moved into place after its checks. */
async function withoutGnuTar<T>(work: () => Promise<T>): Promise<T> {
  process.env.BACKPLANE_TAR_BINARY = 'none';
  try {
    return await work();
  } finally {
    delete process.env.BACKPLANE_TAR_BINARY;
  }
}

const modes = [
  { mode: 'extract', extract: safeExtract, staged: false, gnu: false },
  {
    mode: 'staged restore, in-process',
    extract: (s: Readable, o: Parameters<typeof stagedRestore>[1]) => withoutGnuTar(() => stagedRestore(s, o)),
    staged: true,
    gnu: false,
  },
  // GNU tar refuses a hostile archive as a whole (it fails instead of skipping an entry); the root
  // is then untouched, as after any failed staged restore.
  { mode: 'staged restore, GNU tar', extract: stagedRestore, staged: true, gnu: true },
];

for (const { mode, extract, staged, gnu } of modes) {
  const refused = gnu ? /tar exited with 2/ : /refused/;
  test(`${mode}: a symbolic link already in the restore root leading outside: no folder is created through it`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    await symlink(outside, join(root, 'a'));
    // A link already on disk is met by the move into place, whichever extractor staged the archive.
    await assert.rejects(extract(archive([{ name: 'a/b/c/evil.txt', body: 'pwned' }]), { root }), /refused/);
    assert.deepEqual(await outsideTree(), UNTOUCHED);
  });

  test(`${mode}: symlink-then-file: a link restored from the archive is never written through to outside the root`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    await assert.rejects(
      extract(
        archive([
          { name: 'l', type: 'symlink', linkname: outside },
          { name: 'l/sub/evil.txt', body: 'pwned' },
        ]),
        { root },
      ),
      refused,
    );
    assert.deepEqual(await outsideTree(), UNTOUCHED);
    // A relative link climbing out with `..` is the same escape.
    await assert.rejects(
      extract(
        archive([
          { name: 'up', type: 'symlink', linkname: '..' },
          { name: 'up/outside/new/evil.txt', body: 'pwned' },
        ]),
        { root },
      ),
      refused,
    );
    assert.deepEqual(await outsideTree(), UNTOUCHED);
    // A link to a folder that does not exist yet must not get it created either.
    await assert.rejects(
      extract(
        archive([
          { name: 'dangling', type: 'symlink', linkname: join(outside, 'missing') },
          { name: 'dangling/evil.txt', body: 'pwned' },
        ]),
        { root },
      ),
      refused,
    );
    assert.deepEqual(await outsideTree(), UNTOUCHED);
  });

  test(`${mode}: \`..\` components are skipped with a warning and absolute names land under the root`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    const warnings: string[] = [];
    if (staged) {
      // A staged restore checks the archive before it moves anything: an unsafe name fails it.
      await assert.rejects(
        extract(
          archive([
            { name: '../outside/evil.txt', body: 'pwned' },
            { name: 'fine.txt', body: 'ok' },
          ]),
          { root },
        ),
        gnu ? /Member name contains '\.\.'/ : /unsafe \(contains "\.\."\)/,
      );
      assert.deepEqual(await outsideTree(), UNTOUCHED);
      assert.deepEqual(await readdir(root), []);
      return;
    }
    await extract(
      archive([
        { name: '../outside/evil.txt', body: 'pwned' },
        { name: 'a/../../outside/evil.txt', body: 'pwned' },
        { name: '..', type: 'symlink', linkname: outside },
        { name: 'ok/../../..', type: 'directory' },
        { name: join(outside, 'abs.txt'), body: 'kept under the root' },
        { name: 'fine.txt', body: 'ok' },
      ]),
      { root, onWarning: (m) => warnings.push(m) },
    );
    assert.deepEqual(await outsideTree(), UNTOUCHED);
    assert.equal(warnings.filter((w) => w.includes('".."')).length, 4, warnings.join('\n'));
    assert.equal(await readFile(join(root, outside, 'abs.txt'), 'utf8'), 'kept under the root');
    assert.equal(await readFile(join(root, 'fine.txt'), 'utf8'), 'ok');
  });

  test(`${mode}: hard links: an entry linking outside is not created; a file is replaced, never written into an inode shared with outside`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    const warnings: string[] = [];
    if (gnu)
      await assert.rejects(
        extract(archive([{ name: 'h', type: 'link', linkname: join(outside, 'keep.txt') }]), { root }),
        /Cannot hard link/,
      );
    else
      await extract(archive([{ name: 'h', type: 'link', linkname: join(outside, 'keep.txt') }]), {
        root,
        onWarning: (m) => warnings.push(m),
      });
    await assert.rejects(lstat(join(root, 'h')), { code: 'ENOENT' });
    if (!gnu) assert.match(warnings.join('\n'), /unsupported entry type link/);
    // A hard link already in the root (left there by someone else) to a file outside it.
    await link(join(outside, 'keep.txt'), join(root, 'shared.txt'));
    await extract(archive([{ name: 'shared.txt', body: 'restored' }]), { root });
    assert.equal(await readFile(join(root, 'shared.txt'), 'utf8'), 'restored');
    assert.deepEqual(await outsideTree(), UNTOUCHED);
  });

  test(`${mode}: a folder replaced by a link mid-archive: later entries are not written through it`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    await assert.rejects(
      extract(
        archive([
          { name: 'd', type: 'directory' },
          { name: 'd/first.txt', body: 'ok' },
          { name: 'd', type: 'symlink', linkname: outside },
          { name: 'd/sub/evil.txt', body: 'pwned' },
        ]),
        { root },
      ),
      refused,
    );
    assert.deepEqual(await outsideTree(), UNTOUCHED);
    if (staged)
      await assert.rejects(
        lstat(join(root, 'd')),
        { code: 'ENOENT' },
        'a failed staged restore moves nothing into the root',
      );
    else assert.equal(await readlink(join(root, 'd')), outside, 'the link itself is an entry inside the root');
  });

  test(`${mode}: an entry naming the root itself never replaces the root`, async (t) => {
    const { root, outside, outsideTree } = await scratch(t);
    await writeFile(join(root, 'precious.txt'), 'mine');
    const warnings: string[] = [];
    const hostile = archive([
      { name: './', body: 'a file where the root is' },
      { name: '.', type: 'symlink', linkname: outside },
      { name: 'after.txt', body: 'ok' },
    ]);
    if (gnu) {
      await assert.rejects(extract(hostile, { root }), /tar exited with 2/);
      assert.equal((await lstat(root)).isDirectory(), true);
      assert.deepEqual(await readdir(root), ['precious.txt']);
      assert.deepEqual(await outsideTree(), UNTOUCHED);
      return;
    }
    await extract(hostile, { root, onWarning: (m) => warnings.push(m) });
    assert.equal((await lstat(root)).isDirectory(), true);
    assert.equal(await readFile(join(root, 'precious.txt'), 'utf8'), 'mine');
    assert.equal(await readFile(join(root, 'after.txt'), 'utf8'), 'ok');
    assert.equal(warnings.filter((w) => /root itself/.test(w)).length, 2, warnings.join('\n'));
    assert.deepEqual(await outsideTree(), UNTOUCHED);
  });

  test(`${mode}: honest archives: links that stay inside the root are followed, like /lib -> usr/lib on a merged-/usr system`, async (t) => {
    const { root, outsideTree } = await scratch(t);
    await mkdir(join(root, 'usr', 'lib'), { recursive: true });
    await symlink('usr/lib', join(root, 'lib'));
    const result = await extract(
      archive([
        { name: 'lib/x', type: 'directory' },
        { name: 'lib/x/a.txt', body: 'hello' },
        { name: 'etc', type: 'directory' },
        { name: 'etc/link', type: 'symlink', linkname: '/etc/hosts' },
        { name: 'etc/deep/er/b.txt', body: 'made on the way' },
      ]),
      { root },
    );
    assert.equal(result.entries, 5);
    assert.equal(await readFile(join(root, 'usr', 'lib', 'x', 'a.txt'), 'utf8'), 'hello');
    assert.equal(await readlink(join(root, 'lib')), 'usr/lib', 'the in-root link was followed, not replaced');
    assert.equal(
      await readlink(join(root, 'etc', 'link')),
      '/etc/hosts',
      'a link may point anywhere; it is only never written through',
    );
    assert.equal(await readFile(join(root, 'etc', 'deep', 'er', 'b.txt'), 'utf8'), 'made on the way');
    assert.deepEqual(await outsideTree(), UNTOUCHED);
  });
}
