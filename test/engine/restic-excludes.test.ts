import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expandBraces, isExcluded, resticExcludes, sourcesKept } from '../../core/engine/index.ts';
import { repositoryFixture, writeTree } from './restic-fixture.ts';

test('braces expand (nested, escaped, literal pairs); negated classes become Go carets', () => {
  assert.deepEqual(expandBraces('a{b,c{d,e}}f'), ['abf', 'acdf', 'acef']);
  assert.deepEqual(expandBraces('*.{log,tmp}'), ['*.log', '*.tmp']);
  assert.deepEqual(expandBraces('{x}.{a,b}'), ['{x}.a', '{x}.b']);
  assert.deepEqual(expandBraces('\\{a,b}'), ['\\{a,b}']);
  assert.deepEqual(expandBraces('no braces'), ['no braces']);
  assert.deepEqual(resticExcludes(['[!a]*.{x,y}', '', '*.x'], ['/srv']), [
    '/srv/**/[^a]*.x',
    '/srv/**/[^a]*.y',
    '/srv/**/*.x',
  ]);
});

test('relative patterns are anchored below each source path (escaped); absolute ones kept', () => {
  assert.deepEqual(resticExcludes(['cache', '**/build/*.o', '/srv/a/tmp'], ['/srv/a', '/opt/we[ir]d*', '/']), [
    '/srv/a/**/cache',
    '/opt/we\\[ir\\]d\\*/**/cache',
    '/**/cache',
    '/srv/a/**/build/*.o',
    '/opt/we\\[ir\\]d\\*/**/build/*.o',
    '/**/build/*.o',
    '/srv/a/tmp',
  ]);
  assert.deepEqual(sourcesKept(['/srv/app', '/var/log/x.log', '/srv/cache'], ['*.log', '/srv/cache']), ['/srv/app']);
});

/** What the tar walk keeps below `root`: excluded paths are skipped and not descended into. */
async function walkKept(root: string, excludes: string[]): Promise<string[]> {
  const kept: string[] = [];
  const visit = async (abs: string): Promise<void> => {
    if (isExcluded(abs, excludes)) return;
    kept.push(abs);
    const children = await readdir(abs, { withFileTypes: true }).catch(() => []);
    for (const child of children) await visit(join(abs, child.name));
  };
  await visit(root);
  return kept.sort();
}

test('restic keeps exactly the files the tar walk keeps, with a pattern that names a folder above the source', async () => {
  const { dir, restic, cleanup } = await repositoryFixture();
  try {
    // the source lies below a folder called `cache`: restic alone would drop all of it
    const src = join(dir, 'cache', 'app');
    await writeTree(src, {
      'keep.txt': 'k',
      'debug.log': 'l',
      'sub/trace.log': 'l',
      'sub/cache/blob': 'c',
      'sub/notcache/blob': 'c',
      'a.tmp': 't',
      'b.swp': 's',
      'c.swp.keep': 'k',
      'skipme/inner.txt': 's',
      'build/x.o': 'o',
      'deep/build/y.o': 'o',
      'deep/build/y.c': 'c',
      'kept.bak': 'b',
      'other.bak': 'b',
    });
    const lone = join(dir, 'lone.log');
    await writeTree(dir, { 'lone.log': 'alone' });
    const excludes = ['cache', '*.log', '*.{tmp,swp}', `${src}/skipme`, '**/build/*.o', '[!k]*.bak'];

    const summary = await restic.backup([src, lone], { excludes });
    const [snapshot] = await restic.snapshots([summary.snapshotId]);
    assert.deepEqual(snapshot!.paths, [src], 'a source path the walk excludes is left out');
    const stored: string[] = [];
    for await (const node of restic.ls(summary.snapshotId, src, { recursive: true })) stored.push(node.path);
    assert.deepEqual(stored.sort(), await walkKept(src, excludes));
    assert.ok(stored.includes(join(src, 'sub/notcache/blob')));
    assert.ok(!stored.includes(join(src, 'sub/cache')));
  } finally {
    await cleanup();
  }
});
