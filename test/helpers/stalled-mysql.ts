import type { TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export interface StalledMysqlDatabase {
  name: string;
  host: string;
  port: number;
  /** A user of its own, with a real password the server checks, allowed this database only. */
  user: string;
  password: string;
  /** Ends the lock: a waiting mysqldump goes on. */
  release(): Promise<void>;
}

/**
 * A real MariaDB/MySQL database whose only table is held by `LOCK TABLES ... WRITE` in another
 * session, so a mysqldump of it waits on the table's metadata lock for as long as the test keeps
 * it. The lock, the database and the user go when the test ends.
 */
export async function stalledMysqlDatabase(
  t: TestContext,
  url: string,
  password: string,
): Promise<StalledMysqlDatabase> {
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 3306);
  const tag = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const name = `bp_stall_${tag}`;
  const user = `bp_u_${tag}`;
  const admin = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  const locker = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  t.after(async () => {
    await locker.query('UNLOCK TABLES').catch(() => undefined);
    await locker.end().catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
    await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
    await admin.end();
  });
  await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
  await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
  await admin.query(`GRANT ALL PRIVILEGES ON \`${name}\`.* TO ?@?`, [user, '%']);
  // mysqldump --routines reads routine bodies from mysql.proc on MariaDB < 11.3.
  await admin.query('GRANT SELECT ON mysql.proc TO ?@?', [user, '%']);
  await admin.query(`CREATE TABLE \`${name}\`.items (id int PRIMARY KEY, name text) ENGINE=InnoDB`);
  await admin.query(`INSERT INTO \`${name}\`.items VALUES ?`, [
    Array.from({ length: 100 }, (_, i) => [i + 1, `row ${i + 1}`]),
  ]);
  await locker.query(`LOCK TABLES \`${name}\`.items WRITE`);
  return {
    name,
    host,
    port,
    user,
    password,
    async release() {
      await locker.query('UNLOCK TABLES');
    },
  };
}
