import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openOrm, migrate } from '../../core/db/orm.ts';
import { AggregateSql } from '../../core/db/aggregate-sql.ts';
import { HeartbeatWriter } from '../../core/agent-protocol/heartbeat-writer.ts';
import { tempDir } from '../helpers/build.ts';

test('heartbeats of the same moment share one commit; each learns whether its node exists; a failed batch fails its heartbeats', async (t) => {
  const orm = await openOrm(`sqlite:${join(await tempDir(t), 'db.sqlite')}`);
  t.after(() => orm.close());
  await migrate(orm);
  const sql = new AggregateSql(orm.em.fork());
  const now = sql.time(new Date());
  for (let i = 1; i <= 20; i++) {
    await sql.run('insert into nodes (name, is_local, token_hash, created_at, updated_at) values (?, ?, ?, ?, ?)', [`n${i}`, false, `h${i}`, now, now]);
  }
  const native = (await orm.em.getConnection().getNativeClient()) as { prepare(text: string): unknown };
  const statements: string[] = [];
  const prepare = native.prepare;
  native.prepare = function (this: unknown, text: string) {
    statements.push(text.trim().toLowerCase());
    return prepare.call(this, text);
  };
  t.after(() => { native.prepare = prepare; });

  const writer = new HeartbeatWriter({ orm });
  const update = 'update nodes set hostname = ? where id = ?';
  const ids = [...Array.from({ length: 20 }, (_, i) => i + 1), 999];
  const applied = await Promise.all(ids.map((id) => writer.write(update, [`host-${id}`, id])));
  assert.deepEqual(applied, [...Array(20).fill(true), false], 'the missing node is told apart');
  assert.equal(statements.filter((s) => s === 'commit').length, 1, `one commit for 21 heartbeats: ${statements.join(' | ')}`);
  const hosts = await sql.rows<{ hostname: string }>('select hostname from nodes order by id');
  assert.deepEqual(hosts.map((h) => h.hostname), Array.from({ length: 20 }, (_, i) => `host-${i + 1}`));

  // A statement that fails takes its batch with it, and nothing of the batch is written.
  const failing = await Promise.allSettled([writer.write(update, ['kept-out', 1]), writer.write('update no_such_table set x = ? where id = ?', [1, 1])]);
  assert.deepEqual(failing.map((r) => r.status), ['rejected', 'rejected']);
  const [first] = await sql.rows<{ hostname: string }>('select hostname from nodes where id = ?', [1]);
  assert.equal(first?.hostname, 'host-1');
  // The writer keeps working after a failed batch.
  assert.equal(await writer.write(update, ['again', 2]), true);
});
