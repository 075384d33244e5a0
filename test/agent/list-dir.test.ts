import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listDir, listDirCommand, MAX_ENTRIES } from '../../agent/commands/list-dir.ts';

test('folders first, then names; sizes and times from stat', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bp-agent-ls-'));
  try {
    await writeFile(join(dir, 'b.txt'), 'hello');
    await writeFile(join(dir, 'A.txt'), '');
    await mkdir(join(dir, 'zeta'));
    await mkdir(join(dir, 'alpha'));
    await symlink(join(dir, 'alpha'), join(dir, 'link-to-dir'));
    const listing = await listDir(dir);
    assert.equal(listing.path, dir);
    assert.deepEqual(
      listing.entries.map((e) => [e.name, e.isDir]),
      [
        ['alpha', true],
        ['link-to-dir', true],
        ['zeta', true],
        ['A.txt', false],
        ['b.txt', false],
      ],
    );
    const b = listing.entries.find((e) => e.name === 'b.txt')!;
    assert.equal(b.size, 5);
    assert.equal(b.path, join(dir, 'b.txt'));
    assert.ok(!Number.isNaN(Date.parse(b.modifiedAt!)));
    assert.equal(listing.entries.find((e) => e.name === 'alpha')!.size, 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an empty path lists the root; a missing folder rejects', async () => {
  const outcome = await listDirCommand({ path: '' });
  assert.equal(outcome.success, true);
  assert.equal(outcome.result!.path, '/');
  await assert.rejects(listDir('/definitely/not/here'), /ENOENT/);
});

test(`listings stop at ${MAX_ENTRIES} entries`, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bp-agent-ls-many-'));
  try {
    await Promise.all(
      Array.from({ length: MAX_ENTRIES + 3 }, (_, i) => writeFile(join(dir, `f${String(i).padStart(5, '0')}`), '')),
    );
    const listing = await listDir(dir);
    assert.equal(listing.entries.length, MAX_ENTRIES);
    assert.equal(listing.truncated, true);
    assert.equal(listing.total, MAX_ENTRIES + 3, 'the count before the cut');
    assert.equal(listing.entries[0]!.name, 'f00000');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
