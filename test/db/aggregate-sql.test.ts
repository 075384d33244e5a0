import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openOrm, migrate, type Orm } from '../../core/db/orm.ts';
import { AggregateSql } from '../../core/db/aggregate-sql.ts';
import { tempDir } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';

async function sqliteOrm(t: TestContext): Promise<Orm> {
  const orm = await openOrm(`sqlite:${join(await tempDir(t), 'db.sqlite')}`);
  t.after(() => orm.close());
  await migrate(orm);
  return orm;
}

async function seedNode(sql: AggregateSql, name: string): Promise<void> {
  await sql.run('insert into nodes (name, is_local, token_hash, created_at, updated_at) values (?, ?, ?, ?, ?)', [
    name,
    false,
    `hash-${name}`,
    sql.time(new Date()),
    sql.time(new Date()),
  ]);
}

test('SQLite: hand-written statements bind their parameters, so one statement text serves every value', async (t) => {
  const orm = await sqliteOrm(t);
  const sql = new AggregateSql(orm.em.fork());
  const native = (await orm.em.getConnection().getNativeClient()) as { prepare(text: string): unknown };
  const seen: string[] = [];
  const prepare = native.prepare;
  native.prepare = function (this: unknown, text: string) {
    seen.push(text);
    return prepare.call(this, text);
  };
  t.after(() => {
    native.prepare = prepare;
  });

  for (const name of ['alpha', 'beta', "o'quote"]) await seedNode(sql, name);
  const lookup = 'select name, is_local from nodes where token_hash = ?';
  for (const name of ['alpha', 'beta', "o'quote"]) {
    const [row] = await sql.rows<{ name: string; is_local: number }>(lookup, [`hash-${name}`]);
    assert.equal(row?.name, name);
    assert.equal(Number(row?.is_local), 0, 'false is stored as 0, as MikroORM stores it');
  }
  assert.equal(seen.filter((text) => text === lookup).length, 3, 'the same text each time, values bound');
  assert.ok(!seen.some((text) => text.includes('hash-beta')), 'no value written into the statement text');
  assert.equal(await sql.run('update nodes set hostname = ? where token_hash = ?', ['h', 'hash-none']), 0);
  assert.equal(await sql.run('update nodes set hostname = ? where name <> ?', ['h', 'alpha']), 2);
});

test('SQLite: a hand-written write inside a transaction rolls back with it', async (t) => {
  const orm = await sqliteOrm(t);
  const em = orm.em.fork();
  await seedNode(new AggregateSql(em), 'kept');
  await assert.rejects(
    em.transactional(async (tx) => {
      const sql = new AggregateSql(tx);
      await seedNode(sql, 'rolled-back');
      assert.equal(
        (await sql.rows('select id from nodes where name = ?', ['rolled-back'])).length,
        1,
        'visible inside the transaction',
      );
      throw new Error('abort the transaction');
    }),
    /abort the transaction/,
  );
  const names = (
    await new AggregateSql(orm.em.fork()).rows<{ name: string }>('select name from nodes order by id')
  ).map((r) => r.name);
  assert.deepEqual(names, ['kept']);
});

test('PostgreSQL: hand-written statements answer the same through the ORM connection', async (t) => {
  const url = await scratchPostgres(t, 'backplane_aggsql');
  if (!url) return;
  const orm = await openOrm(url);
  t.after(() => orm.close());
  await migrate(orm);
  const sql = new AggregateSql(orm.em.fork());
  await seedNode(sql, 'pg-node');
  const [row] = await sql.rows<{ name: string; is_local: boolean }>(
    'select name, is_local from nodes where token_hash = ?',
    ['hash-pg-node'],
  );
  assert.equal(row?.name, 'pg-node');
  assert.equal(row?.is_local, false);
  assert.equal(await sql.run('update nodes set hostname = ? where name = ?', ['h', 'pg-node']), 1);
});
