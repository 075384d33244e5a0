import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { openOrm, migrate } from '../../core/db/orm.ts';
import { nextBootEpoch } from '../../core/events/boot-epoch.ts';
import { postgresUrl, requireOrSkip } from '../helpers/databases.ts';

test('masters starting together on one PostgreSQL database each get their own boot epoch', async (t) => {
  const admin = await requireOrSkip(t, 'postgres');
  if (!admin) return;
  const name = `backplane_epoch_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`drop database if exists ${name}`);
  await client.query(`create database ${name}`);
  t.after(async () => {
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  });
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  const orms = [await openOrm(url.toString()), await openOrm(url.toString())];
  t.after(() => Promise.all(orms.map((o) => o.close())));
  await migrate(orms[0]!);
  const epochs = await Promise.all(Array.from({ length: 20 }, (_, i) => nextBootEpoch(orms[i % 2]!)));
  assert.deepEqual([...epochs].sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
});
