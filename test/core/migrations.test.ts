import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { openOrm, migrate } from '../../core/db/orm.ts';
import { tempDir } from '../helpers/build.ts';
import { postgresUrl, requireOrSkip } from '../helpers/databases.ts';

async function driftAfterMigrations(url: string): Promise<string> {
  const orm = await openOrm(url);
  try {
    await migrate(orm);
    return (await orm.schema.getUpdateSchemaSQL({ wrap: false })).trim();
  } finally {
    await orm.close();
  }
}

test('migrations build exactly the entity schema on SQLite', async (t) => {
  const dir = await tempDir(t);
  assert.equal(await driftAfterMigrations(`sqlite:${join(dir, 'db.sqlite')}`), '');
});

test('migrations build exactly the entity schema on PostgreSQL (scale-out mode)', async (t) => {
  const admin = await requireOrSkip(t, 'postgres');
  if (!admin) return;
  const name = `backplane_mig_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`drop database if exists ${name}`);
  await client.query(`create database ${name}`);
  t.after(async () => {
    await client.query(`drop database if exists ${name}`);
    await client.end();
  });
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  assert.equal(await driftAfterMigrations(url.toString()), '');
});
