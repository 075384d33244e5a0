import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { openOrm, migrate } from '../../core/db/orm.ts';
import { AggregateSql } from '../../core/db/aggregate-sql.ts';
import { HeartbeatWriter } from '../../core/agent-protocol/heartbeat-writer.ts';
import { tempDir } from '../helpers/build.ts';
import { scratchPostgres } from '../helpers/databases.ts';

test('heartbeats of the same moment share one commit; each learns whether its node exists; a failed batch fails its heartbeats', async (t) => {
  const orm = await openOrm(`sqlite:${join(await tempDir(t), 'db.sqlite')}`);
  t.after(() => orm.close());
  await migrate(orm);
  const sql = new AggregateSql(orm.em.fork());
  const now = sql.time(new Date());
  for (let i = 1; i <= 20; i++) {
    await sql.run('insert into nodes (name, is_local, token_hash, created_at, updated_at) values (?, ?, ?, ?, ?)', [
      `n${i}`,
      false,
      `h${i}`,
      now,
      now,
    ]);
  }
  const native = (await orm.em.getConnection().getNativeClient()) as { prepare(text: string): unknown };
  const statements: string[] = [];
  const prepare = native.prepare;
  native.prepare = function (this: unknown, text: string) {
    statements.push(text.trim().toLowerCase());
    return prepare.call(this, text);
  };
  t.after(() => {
    native.prepare = prepare;
  });

  const writer = new HeartbeatWriter({ orm });
  const update = 'update nodes set hostname = ? where id = ?';
  const ids = [...Array.from({ length: 20 }, (_, i) => i + 1), 999];
  const applied = await Promise.all(ids.map((id) => writer.write(id, update, [`host-${id}`, id])));
  assert.deepEqual(applied, [...Array(20).fill(true), false], 'the missing node is told apart');
  assert.equal(
    statements.filter((s) => s === 'commit').length,
    1,
    `one commit for 21 heartbeats: ${statements.join(' | ')}`,
  );
  const hosts = await sql.rows<{ hostname: string }>('select hostname from nodes order by id');
  assert.deepEqual(
    hosts.map((h) => h.hostname),
    Array.from({ length: 20 }, (_, i) => `host-${i + 1}`),
  );

  // A statement that fails takes its batch with it, and nothing of the batch is written.
  const failing = await Promise.allSettled([
    writer.write(1, update, ['kept-out', 1]),
    writer.write(1, 'update no_such_table set x = ? where id = ?', [1, 1]),
  ]);
  assert.deepEqual(
    failing.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  const [first] = await sql.rows<{ hostname: string }>('select hostname from nodes where id = ?', [1]);
  assert.equal(first?.hostname, 'host-1');
  // The writer keeps working after a failed batch.
  assert.equal(await writer.write(2, update, ['again', 2]), true);
});

test('on PostgreSQL a batch is one transaction, and masters writing the same nodes at once never deadlock', {
  timeout: 60_000,
}, async (t) => {
  const url = await scratchPostgres(t, 'bp_heartbeats');
  if (!url) return;
  const orms = [await openOrm(url), await openOrm(url)];
  t.after(() => Promise.all(orms.map((o) => o.close())));
  await migrate(orms[0]!);
  const sql = new AggregateSql(orms[0]!.em.fork());
  const now = sql.time(new Date());
  for (let i = 1; i <= 40; i++)
    await sql.run('insert into nodes (name, is_local, token_hash, created_at, updated_at) values (?, ?, ?, ?, ?)', [
      `n${i}`,
      false,
      `h${i}`,
      now,
      now,
    ]);
  const writers = orms.map((orm) => new HeartbeatWriter({ orm }));
  const update = 'update nodes set hostname = ? where id = ?';
  const ids = Array.from({ length: 40 }, (_, i) => i + 1);

  // Two masters, each with a batch over the same 40 rows, arriving in opposite orders, many times.
  for (let round = 0; round < 20; round++) {
    const results = await Promise.allSettled([
      ...ids.map((id) => writers[0]!.write(id, update, [`a-${round}`, id])),
      ...[...ids].reverse().map((id) => writers[1]!.write(id, update, [`b-${round}`, id])),
    ]);
    const failed = results.filter((r) => r.status === 'rejected');
    assert.deepEqual(failed, [], `round ${round}`);
  }

  // A failing statement takes the rows written before it in its batch with it: one transaction.
  await writers[0]!.write(1, update, ['before', 1]);
  const failing = await Promise.allSettled([
    writers[0]!.write(1, update, ['kept-out', 1]),
    writers[0]!.write(2, 'update no_such_table set x = ? where id = ?', [1, 1]),
  ]);
  assert.deepEqual(
    failing.map((r) => r.status),
    ['rejected', 'rejected'],
  );
  assert.deepEqual(await sql.rows<{ hostname: string }>('select hostname from nodes where id = ?', [1]), [
    { hostname: 'before' },
  ]);

  // A deadlock with another writer of node rows (rows 2 then 1, against the batch's 1 then 2):
  // PostgreSQL ends the batch's transaction (the other session waits longer before it checks),
  // and the batch is written again once the other commits.
  const other = new pg.Client({ connectionString: url });
  // The scratch database is dropped (its sessions ended) before this client's own hook runs.
  other.on('error', () => undefined);
  await other.connect();
  t.after(() => other.end().catch(() => undefined));
  await other.query("set deadlock_timeout = '20s'");
  await other.query('begin');
  await other.query("update nodes set os = 'other' where id = 2");
  const batch = Promise.all([
    writers[0]!.write(1, update, ['retried', 1]),
    writers[0]!.write(2, update, ['retried', 2]),
  ]);
  await new Promise((r) => setTimeout(r, 300));
  const crossing = other.query("update nodes set os = 'other' where id = 1");
  // The batch's backend detects the deadlock after its own deadlock_timeout (1 s) and is rolled back.
  await new Promise((r) => setTimeout(r, 2000));
  await crossing;
  await other.query('commit');
  assert.deepEqual(await batch, [true, true], 'written on the second attempt');
  assert.deepEqual(await sql.rows('select id, hostname, os from nodes where id in (1, 2) order by id'), [
    { id: 1, hostname: 'retried', os: 'other' },
    { id: 2, hostname: 'retried', os: 'other' },
  ]);
});
