import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandBraces, resticExcludes, sourcesKept } from '../../core/engine/index.ts';

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
