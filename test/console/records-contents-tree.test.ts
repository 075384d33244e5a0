import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  archivePath,
  breadcrumbs,
  buildTree,
  findNode,
  firstInterestingFolder,
  parentPath,
  type ContentEntry,
} from '../../packages/console/src/features/records/contents-tree.ts';

const e = (path: string, size = 0, isDir = false): ContentEntry => ({
  path,
  size,
  isDir,
  type: isDir ? 'directory' : 'file',
  mode: 0o644,
  mtime: '2026-01-02T03:00:00.000Z',
});

test('archivePath drops leading, trailing, empty and dot parts', () => {
  assert.equal(archivePath('/srv//app/./x/'), 'srv/app/x');
  assert.equal(archivePath('./'), '');
  assert.equal(parentPath('srv/app/x'), 'srv/app');
  assert.equal(parentPath('srv'), '');
});

test('buildTree makes up the folders that only lead to the backed-up paths, with sizes and file counts', () => {
  const root = buildTree([
    e('srv/app', 0, true),
    e('srv/app/a.txt', 10),
    e('srv/app/sub', 0, true),
    e('srv/app/sub/b.txt', 5),
    e('srv/app/c.txt', 1),
  ]);
  const srv = findNode(root, 'srv');
  assert.ok(srv);
  assert.equal(srv.entry, null);
  assert.equal(srv.isDir, true);
  assert.equal(root.size, 16);
  assert.equal(root.files, 3);
  const app = findNode(root, '/srv/app/');
  assert.deepEqual(
    app?.children.map((c) => c.name),
    ['sub', 'a.txt', 'c.txt'],
  );
  assert.equal(app?.entry?.isDir, true);
  assert.equal(findNode(root, 'srv/app/sub')?.size, 5);
  assert.equal(findNode(root, 'srv/missing'), undefined);
});

test('buildTree counts an entry listed twice once, and a file entry with entries below is a folder', () => {
  const root = buildTree([e('a', 3), e('a', 3), e('b'), e('b/c', 2)]);
  assert.equal(root.files, 2);
  assert.equal(root.size, 5);
  assert.equal(findNode(root, 'b')?.isDir, true);
  assert.deepEqual(
    root.children.map((c) => c.name),
    ['b', 'a'],
  );
});

test('firstInterestingFolder skips folders holding a single folder', () => {
  assert.equal(firstInterestingFolder(buildTree([e('srv/app/a.txt'), e('srv/app/b.txt')])), 'srv/app');
  assert.equal(firstInterestingFolder(buildTree([e('srv/app/only/file')])), 'srv/app/only');
  assert.equal(firstInterestingFolder(buildTree([e('a.txt'), e('srv/x')])), '');
  assert.equal(firstInterestingFolder(buildTree([])), '');
});

test('breadcrumbs lead from the root to the folder', () => {
  assert.deepEqual(breadcrumbs(''), [{ name: '', path: '' }]);
  assert.deepEqual(breadcrumbs('srv/app'), [
    { name: '', path: '' },
    { name: 'srv', path: 'srv' },
    { name: 'app', path: 'srv/app' },
  ]);
});
