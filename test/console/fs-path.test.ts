import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breadcrumbs, normalisePath, parentPath, togglePath } from '../../packages/console/src/lib/fs-path.ts';

test('breadcrumbs and parent of absolute paths', () => {
  assert.deepEqual(breadcrumbs('/srv/data/'), [
    { name: '/', path: '/' },
    { name: 'srv', path: '/srv' },
    { name: 'data', path: '/srv/data' },
  ]);
  assert.deepEqual(breadcrumbs('/'), [{ name: '/', path: '/' }]);
  assert.equal(parentPath('/srv/data'), '/srv');
  assert.equal(parentPath('/srv'), '/');
  assert.equal(parentPath('/'), '/');
});

test('typed paths are normalised; relative ones refused', () => {
  assert.equal(normalisePath(' /srv//data/./x/../ '), '/srv/data');
  assert.equal(normalisePath('/..'), '/');
  assert.equal(normalisePath('srv'), null);
});

test('selection toggles, one path at most unless multiple', () => {
  assert.deepEqual(togglePath(['/a'], '/b', false), ['/b']);
  assert.deepEqual(togglePath(['/a'], '/b', true), ['/a', '/b']);
  assert.deepEqual(togglePath(['/a', '/b'], '/a', true), ['/b']);
});
