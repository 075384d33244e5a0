import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGnuTarSource } from '../../core/engine/archive/gnu-tar-source.ts';
import type { ManifestEntry } from '../../core/engine/archive/manifest-entry.ts';
import { carriedEntries, readSnapshotFolders, type CarriedEntry } from '../../core/engine/archive/tar-snapshot.ts';
import { filesUnder, q, sh, tempDir } from './helpers.ts';

async function archive(
  src: string,
  file: string,
  incremental: { snapshot: string; base?: string },
  excludes: string[] = [],
): Promise<{ entries: ManifestEntry[]; carried: CarriedEntry[]; warnings: string[] }> {
  const entries: ManifestEntry[] = [];
  const carried: CarriedEntry[] = [];
  const warnings: string[] = [];
  const tar = createGnuTarSource('tar', {
    paths: [src],
    excludes,
    onEntry: (e) => entries.push(e),
    onWarning: (m) => warnings.push(m),
    incremental: { ...incremental, onCarried: (c) => void carried.push(...c) },
  });
  await pipeline(tar.stream, createWriteStream(file));
  await tar.done;
  return { entries, carried, warnings };
}

test('a differential holds only what changed, lists what the full holds, and stock tar restores the chain', async () => {
  const { dir, cleanup } = await tempDir();
  try {
    const src = join(dir, 'src');
    const rel = src.slice(1);
    await mkdir(join(src, 'a/b'), { recursive: true });
    await mkdir(join(src, 'gone'), { recursive: true });
    await mkdir(join(src, 'cache'), { recursive: true });
    await writeFile(join(src, 'a/f1'), 'one');
    await writeFile(join(src, 'a/b/f2'), 'two'.repeat(1000));
    await writeFile(join(src, 'gone/f3'), 'three');
    await writeFile(join(src, 'keep'), 'keep');
    await writeFile(join(src, 'cache/x.tmp'), 'excluded');
    await writeFile(join(src, 'note.log'), 'excluded');

    const fullSnap = join(dir, 'full.snar');
    const full = await archive(src, join(dir, 'full.tar'), { snapshot: fullSnap }, ['cache', '*.log']);
    assert.deepEqual(full.warnings, [], 'tar notes on new folders are not warnings');
    assert.deepEqual(
      full.entries
        .filter((e) => e.type === 'file')
        .map((e) => e.path.slice(rel.length + 1))
        .sort(),
      ['a/b/f2', 'a/f1', 'gone/f3', 'keep'],
    );
    assert.ok((await readSnapshotFolders(fullSnap)).some((f) => f.path === rel));

    // Between the runs: one file changed, one added, a folder deleted, a folder renamed.
    await new Promise((r) => setTimeout(r, 20));
    await writeFile(join(src, 'a/f1'), 'one, changed');
    await writeFile(join(src, 'new'), 'new');
    await rm(join(src, 'gone'), { recursive: true });
    await rename(join(src, 'a/b'), join(src, 'a/renamed'));
    const diffSnap = join(dir, 'diff.snar');
    await copyFile(fullSnap, diffSnap);
    const diff = await archive(src, join(dir, 'diff.tar'), { snapshot: diffSnap, base: fullSnap }, ['cache', '*.log']);
    assert.deepEqual(diff.warnings, []);
    assert.deepEqual(
      diff.entries
        .filter((e) => e.type === 'file')
        .map((e) => e.path.slice(rel.length + 1))
        .sort(),
      ['a/f1', 'new'],
      'only the changed and the new file are archived',
    );
    assert.deepEqual(
      diff.carried.map((c) => [c.path.slice(rel.length + 1), c.from.slice(rel.length + 1)]).sort(),
      [
        ['a/renamed/f2', 'a/b/f2'],
        ['keep', 'keep'],
      ],
      'the unchanged files, with where the full holds them (a renamed folder moves its files)',
    );

    // Stock tools, as docs/differential.md gives them: the full, then the differential.
    const out = join(dir, 'out');
    await mkdir(out);
    await sh(
      `tar -x --listed-incremental=/dev/null -f ${q(join(dir, 'full.tar'))} -C ${q(out)} && ` +
        `tar -x --listed-incremental=/dev/null -f ${q(join(dir, 'diff.tar'))} -C ${q(out)}`,
    );
    const restored = join(out, rel);
    assert.deepEqual((await filesUnder(restored)).sort(), ['a/f1', 'a/renamed/f2', 'keep', 'new']);
    assert.equal(await readFile(join(restored, 'a/f1'), 'utf8'), 'one, changed');
    assert.equal(await readFile(join(restored, 'a/renamed/f2'), 'utf8'), 'two'.repeat(1000));
  } finally {
    await cleanup();
  }
});
