import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';

/**
 * A task naming several databases ("a,b") stores one archive with one dump per database: both
 * are backed up, verified quick and deep (a sandbox per dump), listed as contents, and restored
 * all at once (each into its own name), one alone, or one under another name.
 */

const scratch = (what: string) => `bp_m${what}_${process.pid}_${randomBytes(3).toString('hex')}`;

interface Engine {
  type: string;
  host: string;
  port: number;
  user: string;
  /** Every database on the server. */
  list(): Promise<string[]>;
  create(db: string, rows: number): Promise<void>;
  /** The rows of the one table, in key order. */
  rows(db: string): Promise<unknown[]>;
  exec(db: string, sql: string): Promise<void>;
  drop(db: string): Promise<void>;
  end(): Promise<void>;
}

async function postgres(t: TestContext): Promise<Engine | undefined> {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return undefined;
  const u = new URL(url);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const withDb = async <T>(db: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const c = new pg.Client({
      host: u.hostname,
      port: Number(u.port || 5432),
      user: decodeURIComponent(u.username),
      database: db,
    });
    await c.connect();
    try {
      return await work(c);
    } finally {
      await c.end();
    }
  };
  return {
    type: 'postgresql',
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    list: async () =>
      (await admin.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname),
    create: async (db, rows) => {
      await admin.query(`CREATE DATABASE "${db}"`);
      await withDb(db, async (c) => {
        await c.query('CREATE TABLE items (id integer PRIMARY KEY, what text NOT NULL)');
        await c.query(`INSERT INTO items SELECT g, $1 || ' ' || g FROM generate_series(1, $2::int) g`, [db, rows]);
      });
    },
    rows: (db) =>
      withDb(db, async (c) => (await c.query({ text: 'SELECT * FROM items ORDER BY 1', rowMode: 'array' })).rows),
    exec: (db, sql) => withDb(db, async (c) => void (await c.query(sql))),
    drop: async (db) => void (await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`)),
    end: () => admin.end(),
  };
}

async function mariadb(t: TestContext): Promise<Engine | undefined> {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return undefined;
  const u = new URL(url);
  const admin = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  return {
    type: 'mysql',
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username),
    list: async () =>
      (
        (await admin.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA'))[0] as Array<{ name: string }>
      ).map((r) => r.name),
    create: async (db, rows) => {
      await admin.query(`CREATE DATABASE \`${db}\``);
      await admin.query(
        `CREATE TABLE \`${db}\`.items (id int NOT NULL PRIMARY KEY, what varchar(255) NOT NULL) ENGINE=InnoDB`,
      );
      await admin.query(`INSERT INTO \`${db}\`.items VALUES ?`, [
        Array.from({ length: rows }, (_, i) => [i + 1, `${db} ${i + 1}`]),
      ]);
    },
    rows: async (db) =>
      (await admin.query({ sql: `SELECT * FROM \`${db}\`.items ORDER BY 1`, rowsAsArray: true }))[0] as unknown[],
    exec: async (db, sql) => void (await admin.query(sql.replaceAll('items', `\`${db}\`.items`))),
    drop: async (db) => void (await admin.query(`DROP DATABASE IF EXISTS \`${db}\``)),
    end: () => admin.end(),
  };
}

async function waitRecord(app: FastifyInstance, token: string, kind: 'restore' | 'verify', id: number): Promise<any> {
  const c = app.diContainer.cradle;
  await Promise.all([c.restores.idle(), c.verifications.idle()]);
  const res = await call(app, 'GET', `/api/${kind}/records/${id}`, { token });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

async function scenario(t: TestContext, engine: Engine): Promise<void> {
  const started = Date.now();
  const [a, b, other] = [scratch('a'), scratch('b'), scratch('o')];
  const sandboxes = async () =>
    (await engine.list()).filter(
      (n) => /^bp_verify_\d+_[0-9a-z]+_\d+$/.test(n) && parseInt(n.split('_')[3]!, 36) >= Math.floor(started / 1000),
    );
  t.after(async () => {
    const leftovers = (await engine.list()).filter((n) =>
      [a, b, other].some((db) => n.startsWith(db.slice(0, 40)) && /__bp_/.test(n)),
    );
    for (const db of [a, b, other, ...leftovers, ...(await sandboxes())]) await engine.drop(db);
    await engine.end();
  });
  await engine.create(a, 120);
  await engine.create(b, 45);
  const seededA = await engine.rows(a);
  const seededB = await engine.rows(b);

  const { app } = await build(t);
  const token = await setupAdmin(app);
  const disk = await diskTarget(t, app, token);
  const task = await createTask(app, token, {
    name: `multi ${engine.type}`,
    type: engine.type,
    dbHost: engine.host,
    dbPort: engine.port,
    dbUser: engine.user,
    dbName: `${a}, ${b}`,
    storageTargetIds: [disk.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success', `${record.errorMessage}\n${record.logContent}`);
  assert.match(record.fileName, /\.dumps\.tar\.zst\.age$/);
  assert.equal(record.hasContents, true);
  const contents = await call(app, 'GET', `/api/backup/records/${record.id}/contents`, { token });
  assert.equal(contents.status, 200, contents.body);
  assert.deepEqual(
    contents.json.data.entries.map((e: { path: string }) => e.path),
    [`${a}.sql`, `${b}.sql`],
  );
  assert.ok(contents.json.data.entries.every((e: { size: number }) => e.size > 0));
  // The spool of each dump is gone.
  assert.deepEqual(
    (await readdir(`${app.diContainer.cradle.config.dataDir}/tmp`).catch(() => [])).filter((n) =>
      n.startsWith('dumps-'),
    ),
    [],
  );

  const quick = await waitRecord(
    app,
    token,
    'verify',
    (await call(app, 'POST', `/api/backup/records/${record.id}/verify`, { token, body: { mode: 'quick' } })).json.data
      .id,
  );
  assert.equal(quick.status, 'success', quick.errorMessage);
  assert.match(quick.summary, new RegExp(`the dumps of ${a}, ${b} .* each have their header and completion trailer`));
  const deep = await waitRecord(
    app,
    token,
    'verify',
    (await call(app, 'POST', `/api/backup/records/${record.id}/verify`, { token, body: { mode: 'deep' } })).json.data
      .id,
  );
  assert.equal(deep.status, 'success', `${deep.errorMessage}\n${deep.logContent}`);
  assert.match(
    deep.summary,
    new RegExp(`restored 2 databases \\(${a}, ${b}\\) .* 2 tables, 165 rows, equal to the counts at backup time`),
  );
  assert.deepEqual(await sandboxes(), [], 'every sandbox database was dropped');

  // All: both databases come back, each into its own name.
  await engine.exec(a, 'DELETE FROM items WHERE id > 10');
  await engine.exec(b, 'DELETE FROM items');
  const all = await waitRecord(
    app,
    token,
    'restore',
    (await call(app, 'POST', `/api/backup/records/${record.id}/restore`, { token, body: {} })).json.data.id,
  );
  assert.equal(all.status, 'success', `${all.errorMessage}\n${all.logContent}`);
  assert.deepEqual(await engine.rows(a), seededA);
  assert.deepEqual(await engine.rows(b), seededB);

  // One chosen by name: only it is restored.
  await engine.exec(a, 'DELETE FROM items WHERE id > 5');
  await engine.exec(b, 'DELETE FROM items WHERE id > 5');
  const one = await waitRecord(
    app,
    token,
    'restore',
    (await call(app, 'POST', `/api/backup/records/${record.id}/restore`, { token, body: { databases: [b] } })).json.data
      .id,
  );
  assert.equal(one.status, 'success', `${one.errorMessage}\n${one.logContent}`);
  assert.deepEqual(one.databases, [b]);
  assert.deepEqual(await engine.rows(b), seededB);
  assert.equal((await engine.rows(a)).length, 5, 'the other database is left alone');

  // One under another name.
  const renamed = await waitRecord(
    app,
    token,
    'restore',
    (
      await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
        token,
        body: { databases: [a], targetDatabase: other },
      })
    ).json.data.id,
  );
  assert.equal(renamed.status, 'success', `${renamed.errorMessage}\n${renamed.logContent}`);
  assert.deepEqual(await engine.rows(other), seededA);
  assert.equal((await engine.rows(a)).length, 5);

  // Refused up front.
  const unknown = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { databases: ['nope'] },
  });
  assert.equal(unknown.status, 400, unknown.body);
  assert.equal(unknown.json.code, 'RESTORE_NOTHING_SELECTED');
  const ambiguous = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetDatabase: other },
  });
  assert.equal(ambiguous.json.code, 'RESTORE_TARGET_INVALID', 'several databases cannot go into one name');
  const paths = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { selectedPaths: [`${a}.sql`] },
  });
  assert.equal(paths.json.code, 'RESTORE_TARGET_INVALID');
}

test('postgresql: a two-database task backs up both into one archive; verify quick and deep; restore all, one, one renamed', async (t) => {
  const engine = await postgres(t);
  if (engine) await scenario(t, engine);
});

test('mariadb: a two-database task backs up both into one archive; verify quick and deep; restore all, one, one renamed', async (t) => {
  const engine = await mariadb(t);
  if (engine) await scenario(t, engine);
});

test('postgresql: one database of the list missing fails the whole run; no object and no spooled dump is left', async (t) => {
  const engine = await postgres(t);
  if (!engine) return;
  const a = scratch('a');
  t.after(async () => {
    await engine.drop(a);
    await engine.end();
  });
  await engine.create(a, 10);
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const disk = await diskTarget(t, app, token);
  const task = await createTask(app, token, {
    name: 'multi missing',
    type: engine.type,
    dbHost: engine.host,
    dbPort: engine.port,
    dbUser: engine.user,
    dbName: `${a},${scratch('gone')}`,
    storageTargetIds: [disk.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /does not exist/);
  assert.deepEqual(
    (await readdir(disk.dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()),
    [],
  );
  assert.deepEqual(
    (await readdir(`${app.diContainer.cradle.config.dataDir}/tmp`)).filter((n) => n.startsWith('dumps-')),
    [],
  );
});
