import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NO_FILTERS,
  auditQuery,
  auditQueryString,
  dayBoundary,
  filtersFromSearch,
  rangeInverted,
  searchFromFilters,
} from '../../packages/console/src/features/audit/audit-filters.ts';

test('no filters: an empty query', () => {
  assert.deepEqual(auditQuery(NO_FILTERS), {});
  assert.equal(auditQueryString(NO_FILTERS), '');
});

test("text filters are trimmed, empties left out; names are the route's querystring", () => {
  const q = auditQuery({
    ...NO_FILTERS,
    category: ' auth ',
    action: 'login',
    username: '',
    keyword: 'a b&c',
    targetType: 'user',
    targetId: '7',
  });
  assert.deepEqual(q, { category: 'auth', action: 'login', targetType: 'user', targetId: '7', keyword: 'a b&c' });
  assert.equal(auditQueryString({ ...NO_FILTERS, keyword: 'a b&c', username: 'ann' }), '?username=ann&keyword=a+b%26c');
});

test('a day range covers both local days whole', () => {
  const from = dayBoundary('2026-03-01')!;
  const to = dayBoundary('2026-03-02', true)!;
  assert.equal(from, new Date(2026, 2, 1, 0, 0, 0, 0).toISOString());
  assert.equal(to, new Date(2026, 2, 2, 23, 59, 59, 999).toISOString());
  assert.deepEqual(auditQuery({ ...NO_FILTERS, from: '2026-03-01', to: '2026-03-02' }), { dateFrom: from, dateTo: to });
  // one open end
  assert.deepEqual(auditQuery({ ...NO_FILTERS, to: '2026-03-02' }), { dateTo: to });
  assert.equal(dayBoundary('03/01/2026'), undefined);
  assert.equal(dayBoundary(''), undefined);
});

test('an inverted range is caught before the server refuses it', () => {
  assert.equal(rangeInverted({ from: '2026-03-02', to: '2026-03-01' }), true);
  assert.equal(rangeInverted({ from: '2026-03-01', to: '2026-03-01' }), false);
  assert.equal(rangeInverted({ from: '2026-03-01', to: '' }), false);
});

test('filters and page round-trip through the page URL', () => {
  const filters = { ...NO_FILTERS, category: 'auth', from: '2026-03-01', keyword: 'x' };
  const params = searchFromFilters(filters, 3);
  assert.equal(params.toString(), 'category=auth&keyword=x&from=2026-03-01&page=3');
  assert.deepEqual(filtersFromSearch(params), { filters, page: 3 });
  assert.equal(searchFromFilters(filters, 1).has('page'), false);
  assert.equal(filtersFromSearch(new URLSearchParams('page=-2&bogus=1')).page, 1);
});
