import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  dayStart,
  filtersFromSearch,
  filtersToSearch,
  listQuery,
  NO_FILTERS,
  pageCount,
} from '../../packages/console/src/features/records/list-filters.ts';
import { databasesOf, isActive, isDumpArchive } from '../../packages/console/src/features/records/run-state.ts';

test('filters survive the address round trip; malformed values are ignored', () => {
  const f = filtersFromSearch(
    new URLSearchParams('taskId=3&nodeId=0&status=running&dateFrom=2026-01-02&dateTo=2026-01-05&page=2'),
  );
  assert.deepEqual(f, {
    ...NO_FILTERS,
    taskId: 3,
    nodeId: 0,
    status: 'running',
    dateFrom: '2026-01-02',
    dateTo: '2026-01-05',
    page: 2,
  });
  assert.deepEqual(filtersToSearch(f), {
    taskId: '3',
    nodeId: '0',
    status: 'running',
    dateFrom: '2026-01-02',
    dateTo: '2026-01-05',
    page: '2',
  });
  assert.deepEqual(
    filtersFromSearch(new URLSearchParams('taskId=0&status=nope&dateFrom=yesterday&page=-1&backupRecordId=1.5')),
    NO_FILTERS,
  );
  assert.deepEqual(filtersToSearch(NO_FILTERS), {});
});

test('listQuery pages, and includes the last chosen day (dateTo is exclusive on the server)', () => {
  const q = listQuery({ ...NO_FILTERS, backupRecordId: 7, dateFrom: '2026-01-02', dateTo: '2026-01-05', page: 3 }, 25);
  assert.deepEqual(q, {
    limit: 25,
    offset: 50,
    backupRecordId: 7,
    dateFrom: dayStart('2026-01-02'),
    dateTo: dayStart('2026-01-06'),
  });
  assert.equal(dayStart('2026-01-05', 1), new Date(2026, 0, 6).toISOString());
  const swapped = listQuery({ ...NO_FILTERS, dateFrom: '2026-01-05', dateTo: '2026-01-02' }, 50);
  assert.equal(swapped.dateFrom, dayStart('2026-01-02'));
  assert.equal(swapped.dateTo, dayStart('2026-01-06'));
  assert.deepEqual(listQuery(NO_FILTERS, 50), { limit: 50, offset: 0 });
});

test('pageCount and run states', () => {
  assert.equal(pageCount(0, 50), 1);
  assert.equal(pageCount(101, 50), 3);
  assert.equal(isActive('queued'), true);
  assert.equal(isActive('partial'), false);
  assert.equal(isDumpArchive('7-20260102T030000Z.dumps.tar.zst.age'), true);
  assert.equal(isDumpArchive('7-20260102T030000Z.sql.zst'), false);
  assert.deepEqual(databasesOf(['shop.sql', 'crm.sql', 'x/y.sql', 'noext']), ['shop', 'crm']);
});
