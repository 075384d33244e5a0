import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NO_FILTERS,
  filtersFromSearch,
  filtersToSearch,
  matchesFilters,
} from '../../packages/console/src/features/tasks/task-filters.ts';

const task = { name: 'Nightly Docs', type: 'file', tags: 'prod, docs', enabled: true, nodeId: 0, nodeLabel: '' };

test('name, type, tag, enabled and node filters', () => {
  assert.equal(matchesFilters(task, NO_FILTERS), true);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, q: 'docs' }), true);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, q: 'pg' }), false);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, type: 'mysql' }), false);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, tag: 'docs' }), true);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, tag: 'doc' }), false);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, enabled: 'disabled' }), false);
  assert.equal(matchesFilters(task, { ...NO_FILTERS, node: 'master' }), true);
  assert.equal(matchesFilters({ ...task, nodeId: 3 }, { ...NO_FILTERS, node: '3' }), true);
  assert.equal(matchesFilters({ ...task, nodeLabel: 'eu' }, { ...NO_FILTERS, node: 'pool:eu' }), true);
  assert.equal(matchesFilters({ ...task, nodeLabel: 'eu' }, { ...NO_FILTERS, node: 'master' }), false);
});

test('filters round-trip through search params', () => {
  const f = { q: 'x', type: 'file', tag: 'prod', enabled: 'enabled' as const, node: 'pool:eu' };
  const s = filtersToSearch(f);
  assert.deepEqual(
    filtersFromSearch((k) => s[k] ?? null),
    f,
  );
  assert.deepEqual(filtersToSearch(NO_FILTERS), {});
  assert.deepEqual(
    filtersFromSearch(() => null),
    NO_FILTERS,
  );
});
