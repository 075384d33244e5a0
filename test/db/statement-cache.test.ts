import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cacheStatements } from '../../core/db/statement-cache.ts';

/** A stand-in for the native SQLite handle: counts prepares; statements can be marked busy. */
function fakeDatabase() {
  const prepared: string[] = [];
  const db = {
    prepare(sql: string): { sql: string; busy: boolean } {
      prepared.push(sql);
      return { sql, busy: false };
    },
  };
  return { db, prepared };
}

test('a statement text is prepared once and reused; a busy one, an evicted one and a long one are prepared again', () => {
  const { db, prepared } = fakeDatabase();
  cacheStatements(db, 2);
  const first = db.prepare('select 1');
  assert.equal(db.prepare('select 1'), first, 'same text, same statement');
  first.busy = true;
  assert.notEqual(db.prepare('select 1'), first, 'a statement still being iterated is not handed out twice');
  first.busy = false;
  db.prepare('select 2');
  db.prepare('select 3');
  const before = prepared.length;
  db.prepare('select 1');
  assert.equal(prepared.length, before + 1, 'the least recently used text was evicted at the size limit');

  const long = `insert into t values ${Array.from({ length: 1000 }, (_, i) => `(${i})`).join(', ')}`;
  db.prepare(long);
  db.prepare(long);
  assert.equal(prepared.filter((s) => s === long).length, 2, 'a text over the limit is never kept');
  assert.equal(db.prepare('select 1'), db.prepare('select 1'), 'and did not evict the short ones');
});
