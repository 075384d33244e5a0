import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkState,
  restorePaths,
  setChecked,
} from '../../packages/console/src/features/records/contents-selection.ts';

const tree: Record<string, string[]> = {
  '': ['srv'],
  srv: ['srv/app', 'srv/logs'],
  'srv/app': ['srv/app/a', 'srv/app/b', 'srv/app/sub'],
  'srv/app/sub': ['srv/app/sub/x', 'srv/app/sub/y'],
};
const childrenOf = (p: string) => tree[p] ?? [];

test('checking a folder covers what is below it, and drops the paths already checked there', () => {
  let s = setChecked(new Set(), 'srv/app/a', true, childrenOf);
  s = setChecked(s, 'srv/app/sub/x', true, childrenOf);
  assert.equal(checkState(s, 'srv/app'), 'partial');
  assert.equal(checkState(s, ''), 'partial');
  s = setChecked(s, '/srv/app/', true, childrenOf);
  assert.deepEqual([...s], ['srv/app']);
  assert.equal(checkState(s, 'srv/app/sub/y'), 'checked');
  assert.equal(checkState(s, 'srv'), 'partial');
  assert.equal(checkState(s, 'srv/logs'), 'unchecked');
  assert.equal(checkState(s, 'srv/application'), 'unchecked');
});

test('unchecking inside a checked folder keeps everything else in it', () => {
  const s = setChecked(new Set(['srv']), 'srv/app/sub/x', false, childrenOf);
  assert.deepEqual(restorePaths(s), ['srv/app/a', 'srv/app/b', 'srv/app/sub/y', 'srv/logs']);
  assert.equal(checkState(s, 'srv/app/sub/x'), 'unchecked');
  assert.equal(checkState(s, 'srv/app/sub'), 'partial');
});

test('unchecking a folder drops what was checked below it; unchecking the root clears all', () => {
  const s = setChecked(new Set(['srv/app/a', 'srv/logs']), 'srv/app', false, childrenOf);
  assert.deepEqual([...s], ['srv/logs']);
  assert.equal(setChecked(s, '', false, childrenOf).size, 0);
});

test('restorePaths is sorted and minimal, even with names that sort between a folder and its children', () => {
  assert.deepEqual(restorePaths(new Set(['a/b/c', 'a/b-x', 'a/b', '/z/', ''])), ['a/b', 'a/b-x', 'z']);
});
