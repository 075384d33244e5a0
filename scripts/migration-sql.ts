/**
 * Prints the DDL a new migration needs, for both dialects: the difference between the schema
 * the existing migrations build and the current entities.
 *   node_modules/.bin/node scripts/migration-sql.ts [postgres://postgres@127.0.0.1:5432/postgres]
 * It creates and drops a scratch PostgreSQL database `backplane_migration_scratch`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openOrm, migrate, schemaDrift } from '../core/db/orm.ts';

async function diff(url: string): Promise<string> {
  const orm = await openOrm(url);
  try {
    await migrate(orm);
    return await schemaDrift(orm);
  } finally {
    await orm.close();
  }
}

const admin = process.argv[2] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dir = await mkdtemp(join(tmpdir(), 'backplane-migration-'));
try {
  console.log('-- sqlite\n' + (await diff(`sqlite:${join(dir, 'scratch.db')}`)));
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query('drop database if exists backplane_migration_scratch');
  await client.query('create database backplane_migration_scratch');
  try {
    const url = new URL(admin);
    url.pathname = '/backplane_migration_scratch';
    console.log('-- postgresql\n' + (await diff(url.toString())));
  } finally {
    await client.query('drop database if exists backplane_migration_scratch');
    await client.end();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
