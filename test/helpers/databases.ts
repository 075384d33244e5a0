import type { TestContext } from 'node:test';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { closeAppsOf } from './build.ts';

export function postgresUrl(): string {
  return process.env.BACKPLANE_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

export function mysqlUrl(): string {
  return process.env.BACKPLANE_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
}

async function reachable(kind: 'postgres' | 'mysql'): Promise<string | undefined> {
  try {
    if (kind === 'postgres') {
      const client = new pg.Client({ connectionString: postgresUrl(), connectionTimeoutMillis: 3000 });
      await client.connect();
      await client.end();
    } else {
      const conn = await mysql.createConnection({ uri: mysqlUrl(), connectTimeout: 3000 });
      await conn.end();
    }
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * Returns the server's URL, or marks the test skipped with the reason when the server cannot
 * be reached. CI sets BACKPLANE_REQUIRE_DATABASES=1: there an unreachable server fails instead.
 */
export async function requireOrSkip(t: TestContext, kind: 'postgres' | 'mysql'): Promise<string | undefined> {
  const problem = await reachable(kind);
  const url = kind === 'postgres' ? postgresUrl() : mysqlUrl();
  if (!problem) return url;
  if (process.env.BACKPLANE_REQUIRE_DATABASES === '1')
    throw new Error(`${kind} at ${url} is required in CI but unreachable: ${problem}`);
  t.skip(`${kind} not reachable at ${url}: ${problem}`);
  return undefined;
}

/**
 * A fresh, empty PostgreSQL database for one test (scale-out mode tests run a master on it),
 * dropped when the test ends; its URL, or undefined when the test was skipped.
 */
export async function scratchPostgres(t: TestContext, prefix: string): Promise<string | undefined> {
  const admin = await requireOrSkip(t, 'postgres');
  if (!admin) return undefined;
  const name = `${prefix}_${process.pid}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.query(`create database ${name}`);
  t.after(async () => {
    // The test's masters first: dropping their database under them can hang their shutdown.
    await closeAppsOf(t);
    await client.query(`drop database if exists ${name} with (force)`);
    await client.end();
  });
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}
