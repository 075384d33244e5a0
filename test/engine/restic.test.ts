import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  Restic,
  ResticError,
  type ResticBackupStatus,
  type ResticBackupSummary,
  type ResticNode,
} from '../../core/engine/index.ts';
import { PASSWORD, repositoryFixture, writeTree } from './restic-fixture.ts';
import { describeTree, q, sh, tempDir } from './helpers.ts';

// The real restic (Debian's 0.14.0 in the test image) against local-folder repositories.

const UNREADABLE = '/proc/sys/vm/compact_memory';

test('init: a folder is no repository until init; a second init fails', async () => {
  const { dir, cleanup } = await tempDir('bp-restic-');
  try {
    const restic = new Restic({ repository: join(dir, 'repo'), password: PASSWORD });
    assert.equal(await restic.isInitialised(), false);
    await assert.rejects(
      restic.snapshots(),
      (err: unknown) => err instanceof ResticError && err.kind === 'not_initialised',
    );
    await restic.init();
    assert.equal(await restic.isInitialised(), true);
    const config = await sh(`RESTIC_PASSWORD=${q(PASSWORD)} restic --no-cache -r ${q(join(dir, 'repo'))} cat config`);
    assert.equal((JSON.parse(config) as { version: number }).version, 2, 'format 2: compression');
    await assert.rejects(restic.init(), (err: unknown) => {
      assert.ok(err instanceof ResticError);
      assert.equal(err.kind, 'other');
      assert.match(err.message, /^restic init exited with 1: .*config file already exists/);
      return true;
    });
  } finally {
    await cleanup();
  }
});

// One repository with two backups of one folder, made once: the backup test reads what they
// returned, and the tests that only read the repository (copy's source, a wrong password) use it.
describe('a repository with two backups of one folder', () => {
  let fixture: Awaited<ReturnType<typeof repositoryFixture>>;
  let src: string;
  let first: ResticBackupSummary;
  let second: ResticBackupSummary;
  const progress: ResticBackupStatus[] = [];
  before(async () => {
    fixture = await repositoryFixture();
    src = join(fixture.dir, 'src');
    const files: Record<string, string | Buffer> = { 'big.bin': randomBytes(3 * 1024 * 1024) };
    for (let i = 0; i < 20; i++) files[`docs/note-${i}.txt`] = `note ${i}\n`.repeat(100);
    await writeTree(src, files);
    first = await fixture.restic.backup([src], {
      tags: ['nightly'],
      host: 'web-1',
      onProgress: (s) => progress.push(s),
    });
    await writeFile(join(src, 'docs/note-7.txt'), 'changed\n');
    second = await fixture.restic.backup([src], { host: 'web-1' });
  });
  after(() => fixture?.cleanup());

  test('backup: progress and summary; a second backup with one changed file adds little', async () => {
    const { restic } = fixture;
    assert.ok(progress.length > 0);
    assert.ok(progress.every((s) => s.percentDone >= 0 && s.percentDone <= 1));
    assert.match(first.snapshotId, /^[0-9a-f]{64}$/);
    assert.equal(first.snapshotId.slice(0, 8), first.shortId);
    assert.equal(first.filesNew, 21);
    assert.equal(first.totalFilesProcessed, 21);
    assert.ok(first.totalBytesProcessed > 3 * 1024 * 1024);
    assert.ok(first.dataAdded > 3 * 1024 * 1024 * 0.9, `first backup added ${first.dataAdded}`);
    assert.equal(first.warnings, 0);

    assert.equal(second.filesChanged, 1);
    assert.equal(second.filesUnmodified, 20);
    assert.equal(second.filesNew, 0);
    assert.ok(second.dataAdded < 16 * 1024, `second backup added ${second.dataAdded}`);

    const snapshots = await restic.snapshots();
    assert.deepEqual(
      snapshots.map((s) => s.id),
      [first.snapshotId, second.snapshotId],
    );
    assert.deepEqual(snapshots[0]!.paths, [src]);
    assert.deepEqual(snapshots[0]!.tags, ['nightly']);
    assert.equal(snapshots[0]!.hostname, 'web-1');
    assert.equal(snapshots[1]!.parent, first.snapshotId);
    assert.ok(snapshots[0]!.time instanceof Date && !Number.isNaN(snapshots[0]!.time.getTime()));
  });

  test('copy: one of the snapshots goes to a second repository once; the copy restores the same bytes', async () => {
    const { dir, repoPath } = fixture;
    // the latest snapshot: the folder as it is now
    const { snapshotId, shortId } = second;
    const targetPassword = 'another password';
    const target = new Restic({ repository: join(dir, 'copy'), password: targetPassword });
    await target.init({ copyChunkerParamsFrom: { repository: repoPath, password: PASSWORD } });
    const from = { repository: repoPath, password: PASSWORD };
    const copied = await target.copy(from, [snapshotId]);
    assert.equal(copied.length, 1);
    assert.equal(copied[0]!.source, shortId);
    assert.equal(copied[0]!.alreadyCopied, false);
    const again = await target.copy(from, [snapshotId]);
    assert.deepEqual(again, [{ source: shortId, target: copied[0]!.target, alreadyCopied: true }]);

    const [copy] = await target.snapshots();
    assert.equal(copy!.shortId, copied[0]!.target);
    const out = join(dir, 'out');
    await target.restore(copy!.id, out);
    assert.deepEqual(await describeTree(join(out, src)), await describeTree(src));

    await assert.rejects(target.copy({ repository: repoPath, password: 'wrong' }, [snapshotId]), {
      kind: 'wrong_password',
    });
  });

  test('a wrong password is told apart', async () => {
    const { repoPath } = fixture;
    const wrong = new Restic({ repository: repoPath, password: 'not the password' });
    await assert.rejects(wrong.snapshots(), (err: unknown) => {
      assert.ok(err instanceof ResticError);
      assert.equal(err.kind, 'wrong_password');
      assert.equal(err.exitCode, 1);
      assert.equal(err.message, 'restic snapshots exited with 1: Fatal: wrong password or no key found');
      return true;
    });
    await assert.rejects(wrong.isInitialised(), { kind: 'wrong_password' });
    assert.throws(() => new Restic({ repository: repoPath, password: ' \n' }), /empty password/);
  });
});

test('backup: an unreadable file and a missing path are warnings, and the snapshot is made', async () => {
  // As root (the test image) chmod 000 does not stop a read; a write-only /proc/sys file refuses
  // even root (EACCES), and refuses every other user the same way.
  const { dir, restic, cleanup } = await repositoryFixture();
  try {
    const src = join(dir, 'src');
    await writeTree(src, { 'a.txt': 'a\n' });
    const warnings: Array<[string, string]> = [];
    const missing = join(dir, 'missing');
    const summary = await restic.backup([src, UNREADABLE, missing], { onWarning: (m, p) => warnings.push([m, p]) });
    assert.deepEqual(warnings, [
      [`skipped ${missing}: it does not exist`, missing],
      [`skipped ${UNREADABLE}: open: permission denied`, UNREADABLE],
    ]);
    assert.equal(summary.warnings, 2);
    assert.equal(summary.filesNew, 1);
    const [snapshot] = await restic.snapshots([summary.shortId]);
    assert.equal(snapshot!.id, summary.snapshotId);

    // nothing readable at all is no backup
    await assert.rejects(restic.backup([missing]), (err: unknown) => {
      assert.ok(err instanceof ResticError);
      assert.match(err.message, /all target directories\/files do not exist/);
      return true;
    });
  } finally {
    await cleanup();
  }
});

test('snapshots, ls, restore (all and with include) and dump as tar give back the same bytes', async () => {
  const { dir, restic, cleanup } = await repositoryFixture();
  try {
    const src = join(dir, 'src');
    await writeTree(src, {
      'top.txt': 'top\n',
      'sub/deeper/f.bin': randomBytes(200_000),
      'sub/g.txt': 'g\n',
      'other/h.txt': 'h\n',
    });
    await chmod(join(src, 'top.txt'), 0o640);
    await sh(`ln -s ../top.txt ${q(join(src, 'sub/link'))}`);
    const { snapshotId } = await restic.backup([src]);

    const listed: ResticNode[] = [];
    for await (const node of restic.ls(snapshotId, src)) listed.push(node);
    assert.deepEqual(
      listed.map((n) => `${n.type} ${n.path}`),
      [`dir ${src}`, `dir ${src}/other`, `dir ${src}/sub`, `file ${src}/top.txt`],
    );
    const top = listed.find((n) => n.path.endsWith('top.txt'))!;
    assert.equal(top.size, 4);
    assert.equal(top.mode, 0o640);
    const all: ResticNode[] = [];
    for await (const node of restic.ls(snapshotId, `${src}/sub`, { recursive: true })) all.push(node);
    assert.deepEqual(
      all.map((n) => `${n.type} ${n.path.slice(src.length)}`),
      ['dir /sub', 'dir /sub/deeper', 'file /sub/deeper/f.bin', 'file /sub/g.txt', 'symlink /sub/link'],
    );
    // stopping early stops restic
    for await (const node of restic.ls(snapshotId)) {
      assert.equal(node.type, 'dir');
      break;
    }
    await assert.rejects(async () => {
      for await (const node of restic.ls('--help')) void node;
    }, /is not a snapshot id/);

    const whole = join(dir, 'whole');
    await restic.restore(snapshotId, whole);
    assert.deepEqual(await describeTree(join(whole, src)), await describeTree(src));

    const part = join(dir, 'part');
    await restic.restore(snapshotId, part, { include: [`${src}/sub/deeper`] });
    const restored = await describeTree(join(part, src));
    assert.deepEqual([...restored.keys()].sort(), ['sub', 'sub/deeper', 'sub/deeper/f.bin']);
    assert.equal(restored.get('sub/deeper/f.bin'), (await describeTree(src)).get('sub/deeper/f.bin'));

    const tarFile = join(dir, 'sub.tar');
    await pipeline(restic.dump(snapshotId, `${src}/sub`), createWriteStream(tarFile));
    const untarred = join(dir, 'untarred');
    await mkdir(untarred);
    await sh(`tar -xf ${q(tarFile)} -C ${q(untarred)}`);
    const subTree = new Map([...(await describeTree(src))].filter(([k]) => k.startsWith('sub/')));
    const back = new Map([...(await describeTree(join(untarred, src)))].filter(([k]) => k !== 'sub'));
    assert.deepEqual(back, subTree);

    // a file is dumped as its bytes; a path the snapshot lacks fails the stream
    const chunks: Buffer[] = [];
    for await (const chunk of restic.dump(snapshotId, `${src}/top.txt`)) chunks.push(chunk as Buffer);
    assert.equal(Buffer.concat(chunks).toString(), 'top\n');
    await assert.rejects(
      pipeline(restic.dump(snapshotId, `${src}/nothing`), createWriteStream(join(dir, 'x'))),
      (err) => {
        assert.ok(err instanceof ResticError);
        assert.equal(err.exitCode, 2);
        assert.match(err.message, /not found in snapshot/);
        return true;
      },
    );
  } finally {
    await cleanup();
  }
});

test('forget and prune: the data only the forgotten snapshot used is deleted', async () => {
  const { dir, restic, cleanup } = await repositoryFixture();
  try {
    const src = join(dir, 'src');
    await writeTree(src, { 'keep.txt': 'keep\n', 'gone.bin': randomBytes(1024 * 1024) });
    const first = await restic.backup([src]);
    await sh(`rm ${q(join(src, 'gone.bin'))}`);
    const second = await restic.backup([src]);
    const before = await restic.stats();
    assert.equal(before.snapshotsCount, 2);
    assert.ok(before.totalSize > 1024 * 1024);

    assert.deepEqual(await restic.forget([first.snapshotId, 'deadbeef']), { notFound: ['deadbeef'] });
    await restic.prune();
    assert.deepEqual(
      (await restic.snapshots()).map((s) => s.id),
      [second.snapshotId],
    );
    const after = await restic.stats();
    assert.equal(after.snapshotsCount, 1);
    assert.ok(after.totalSize < 64 * 1024, `after prune: ${after.totalSize}`);
    const restoreSize = await restic.stats({ mode: 'restore-size' });
    assert.equal(restoreSize.totalSize, 5, 'keep.txt is all a restore writes');
  } finally {
    await cleanup();
  }
});

test('check: a sound repository passes; a flipped byte in a pack is damage, for check and restore', async () => {
  const { dir, repoPath, restic, cleanup } = await repositoryFixture();
  try {
    const src = join(dir, 'src');
    await writeTree(src, { 'data.bin': randomBytes(300_000) });
    const { snapshotId } = await restic.backup([src]);
    const sound = await restic.check({ readDataSubset: '100%' });
    assert.equal(sound.ok, true);
    assert.match(sound.output, /no errors were found/);

    // the largest pack holds the file's data; restic stores packs read-only
    const packs = await sh(`find ${q(join(repoPath, 'data'))} -type f -printf '%s %p\\n' | sort -n | tail -1`);
    const pack = packs.trim().split(' ')[1]!;
    await chmod(pack, 0o600);
    const bytes = await readFile(pack);
    bytes[1000] = bytes[1000]! ^ 0xff;
    await writeFile(pack, bytes);

    assert.equal((await restic.check()).ok, true, 'the structure alone is still sound');
    const damaged = await restic.check({ readDataSubset: '100%' });
    assert.equal(damaged.ok, false);
    if (damaged.ok) return;
    assert.equal(damaged.error.kind, 'damaged');
    assert.match(damaged.output, /Pack ID does not match/);
    assert.match(damaged.error.message, /repository contains errors/);
    await assert.rejects(restic.restore(snapshotId, join(dir, 'out')), (err: unknown) => {
      assert.ok(err instanceof ResticError);
      assert.equal(err.kind, 'damaged');
      assert.match(err.stderr, /ciphertext verification failed/);
      return true;
    });
  } finally {
    await cleanup();
  }
});
