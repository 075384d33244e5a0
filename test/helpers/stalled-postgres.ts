import type { TestContext } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const run = promisify(execFile);

export interface StalledDatabase {
  name: string;
  host: string;
  port: number;
  user: string;
  /** Ids of the pg_dump processes (on this machine) dumping this database. */
  dumpPids(): Promise<number[]>;
  /** Ends the lock: a waiting pg_dump goes on. */
  release(): Promise<void>;
}

/**
 * A real PostgreSQL database whose only table is held under an ACCESS EXCLUSIVE lock by an open
 * transaction, so any pg_dump of it waits on the lock for as long as the test keeps it. The
 * lock is released (if `release` did not already) and the database dropped when the test ends.
 */
export async function stalledDatabase(t: TestContext, url: string): Promise<StalledDatabase> {
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 5432);
  const user = decodeURIComponent(u.username);
  const name = `bp_stall_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const locker = new pg.Client({ host, port, user, database: name });
  await locker.connect();
  t.after(async () => {
    await locker.query('ROLLBACK').catch(() => undefined);
    await locker.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });
  await locker.query('CREATE TABLE items (id int primary key, name text)');
  await locker.query("INSERT INTO items SELECT g, 'row ' || g FROM generate_series(1, 100) g");
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE items IN ACCESS EXCLUSIVE MODE');
  return {
    name,
    host,
    port,
    user,
    async release() {
      await locker.query('COMMIT');
    },
    async dumpPids() {
      const { stdout } = await run('ps', ['-eo', 'pid=,comm=,args=']);
      return stdout
        .split('\n')
        .map((l) => l.trim().split(/\s+/))
        .filter((f) => f[1] === 'pg_dump' && f.slice(2).join(' ').includes(name))
        .map((f) => Number(f[0]));
    },
  };
}
