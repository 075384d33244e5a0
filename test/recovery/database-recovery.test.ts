import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import mysql from 'mysql2/promise';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { diskTarget, createTask, runAndWait } from '../backup/helpers.ts';
import { flipByte } from '../helpers/flip-byte.ts';

/**
 * End to end through the HTTP API: database records verify (quick: stored bytes and the dump's
 * trailer; deep: a sandbox restore whose row counts equal those at backup time, sandbox removed)
 * and restore for real (into the original, replacing changed data; into a new name), and a
 * corrupted artifact is refused without touching the database.
 */

const scratch = (what: string) => `bp_${what}_${process.pid}_${randomBytes(4).toString('hex')}`;
const CUSTOMERS = 1500;
const ORDERS = 3000;
const TRICKY_NAME = `O'Brien "quoted" \\ back; -- Zoë 日本語 🚀`;

/** Starts a verification or restore through the API, waits for the queues, returns the detail. */
async function verify(app: FastifyInstance, token: string, recordId: number, mode: 'quick' | 'deep'): Promise<any> {
  const res = await call(app, 'POST', `/api/backup/records/${recordId}/verify`, { token, body: { mode } });
  assert.equal(res.status, 200, res.body);
  await app.diContainer.cradle.verifications.idle();
  const detail = await call(app, 'GET', `/api/verify/records/${res.json.data.id}`, { token });
  assert.equal(detail.status, 200, detail.body);
  return detail.json.data;
}

async function restore(
  app: FastifyInstance,
  token: string,
  recordId: number,
  body: Record<string, unknown>,
): Promise<any> {
  const res = await call(app, 'POST', `/api/backup/records/${recordId}/restore`, { token, body });
  assert.equal(res.status, 200, res.body);
  await app.diContainer.cradle.restores.idle();
  const detail = await call(app, 'GET', `/api/restore/records/${res.json.data.id}`, { token });
  assert.equal(detail.status, 200, detail.body);
  return detail.json.data;
}

/** Sandbox databases of this run's verifications: `bp_verify_<verify id>_<base36 seconds>`, made since `since` (ms). */
function sandboxesOf(names: string[], verifyIds: number[], since: number): string[] {
  return names.filter((name) => {
    const m = /^bp_verify_(\d+)_([0-9a-z]+)$/.exec(name);
    return m !== null && verifyIds.includes(Number(m[1])) && parseInt(m[2]!, 36) >= Math.floor(since / 1000);
  });
}

async function setUp(t: TestContext) {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  return { app, token, target };
}

test('postgresql: quick and deep verification, restore in place (swap) and into a new name, a corrupted artifact refused', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const started = Date.now();
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 5432);
  const user = decodeURIComponent(u.username);
  const source = scratch('src');
  const renamed = scratch('new');
  const neverMade = scratch('nomade');
  const verifyIds: number[] = [];
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const databases = async () =>
    (await admin.query<{ datname: string }>('SELECT datname FROM pg_database ORDER BY 1')).rows.map((r) => r.datname);
  /** The scratch and old databases a restore of ours could leave: named after our unique targets. */
  const leftovers = async () =>
    (await databases()).filter((n) =>
      [source, renamed, neverMade].some(
        (db) => n !== db && n.startsWith(db.slice(0, 40)) && /__bp_(restore|old)_/.test(n),
      ),
    );
  t.after(async () => {
    const extra = [...(await leftovers()), ...sandboxesOf(await databases(), verifyIds, started)];
    for (const db of [source, renamed, neverMade, ...extra])
      await admin.query(`DROP DATABASE IF EXISTS "${db}" WITH (FORCE)`);
    await admin.end();
  });
  const withDb = async <T>(db: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host, port, user, database: db });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  /** Every public table and every row of it, in key order. */
  const stateOf = (db: string) =>
    withDb(db, async (c) => {
      const tables = (
        await c.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
        )
      ).rows.map((r) => r.table_name);
      const rows: Record<string, unknown[]> = {};
      for (const table of tables)
        rows[table] = (await c.query({ text: `SELECT * FROM "${table}" ORDER BY 1`, rowMode: 'array' })).rows;
      return { tables, rows };
    });

  await admin.query(`CREATE DATABASE "${source}"`);
  await withDb(source, async (c) => {
    await c.query(`CREATE TABLE customers (
      id integer GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, name text NOT NULL, email text UNIQUE, joined date)`);
    await c.query(`CREATE TABLE orders (
      id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, customer_id integer NOT NULL REFERENCES customers (id),
      amount numeric(10,2), note text, payload bytea, placed timestamptz)`);
    await c.query(
      `INSERT INTO customers (name, email, joined)
      SELECT 'customer ' || g, 'c' || g || '@example.test', date '2020-01-01' + g FROM generate_series(1, $1::int - 1) g`,
      [CUSTOMERS],
    );
    await c.query(`INSERT INTO customers (name, email, joined) VALUES ($1, NULL, NULL)`, [TRICKY_NAME]);
    await c.query(
      `INSERT INTO orders (customer_id, amount, note, payload, placed)
      SELECT 1 + (g % $1::int), g * 0.37, CASE WHEN g % 11 = 0 THEN NULL ELSE 'note ' || md5(g::text) END,
             decode(md5(g::text), 'hex'), timestamptz '2024-01-01 00:00:00+00' + g * interval '17 minutes'
        FROM generate_series(1, $2::int) g`,
      [CUSTOMERS, ORDERS],
    );
  });
  const seeded = await stateOf(source);
  assert.deepEqual(seeded.tables, ['customers', 'orders']);
  assert.equal(seeded.rows.customers!.length + seeded.rows.orders!.length, CUSTOMERS + ORDERS);

  const { app, token, target } = await setUp(t);
  const task = await createTask(app, token, {
    name: 'PG Recovery',
    type: 'postgresql',
    dbHost: host,
    dbPort: port,
    dbUser: user,
    dbName: source,
    storageTargetIds: [target.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success', record.errorMessage);

  // a. Quick: the stored bytes check out and the dump has pg_dump's header and trailer.
  const quick = await verify(app, token, record.id, 'quick');
  assert.equal(quick.status, 'success', quick.errorMessage);
  assert.match(quick.summary, /sha256 [0-9a-f]{64} matches/);
  assert.match(quick.summary, /completion trailer/);
  assert.equal(quick.restoreSeconds, null, 'quick restores nothing');

  // b. Deep: a sandbox restore whose row counts equal those at backup time; the sandbox is dropped.
  const deep = await verify(app, token, record.id, 'deep');
  verifyIds.push(deep.id);
  assert.equal(deep.status, 'success', deep.errorMessage);
  assert.ok(deep.restoreSeconds !== null && deep.restoreSeconds >= 0, `restoreSeconds: ${deep.restoreSeconds}`);
  assert.match(deep.summary, new RegExp(`2 tables, ${CUSTOMERS + ORDERS} rows, equal to the counts at backup time`));
  assert.deepEqual(sandboxesOf(await databases(), verifyIds, started), [], 'the sandbox database was dropped');
  assert.deepEqual(
    (await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE 'bp\\_verify\\_${deep.id}\\_%'`)).rows,
    [],
  );

  // c. Restore into the original after deleting rows, dropping a table and adding junk.
  await withDb(source, async (c) => {
    await c.query('DELETE FROM orders WHERE id % 3 = 0');
    await c.query('DROP TABLE customers CASCADE');
    await c.query('CREATE TABLE junk (id integer PRIMARY KEY, what text)');
    await c.query(`INSERT INTO junk VALUES (1, 'should vanish')`);
    await c.query(`INSERT INTO orders (customer_id, amount, note) VALUES (999999, 1, 'junk order')`);
  });
  assert.notDeepEqual(await stateOf(source), seeded);
  const inPlace = await restore(app, token, record.id, {});
  assert.equal(inPlace.status, 'success', `${inPlace.errorMessage}\n${inPlace.logContent}`);
  assert.equal(inPlace.targetDatabase, '');
  assert.match(inPlace.logContent, /scratch database/);
  assert.match(inPlace.logContent, new RegExp(`swapping .* into place as ${source}`));
  assert.deepEqual(await stateOf(source), seeded, 'the original holds exactly the seeded tables and rows again');
  assert.deepEqual(await leftovers(), [], 'no __bp_restore_ or __bp_old_ database is left');
  assert.deepEqual(
    (
      await admin.query(
        `SELECT datname FROM pg_database WHERE datname LIKE '%\\_\\_bp\\_restore\\_%' OR datname LIKE '%\\_\\_bp\\_old\\_%'`,
      )
    ).rows
      .map((r: { datname: string }) => r.datname)
      .filter((n: string) => n.startsWith(source.slice(0, 40))),
    [],
  );

  // d. Restore into a new name.
  const intoNew = await restore(app, token, record.id, { targetDatabase: renamed });
  assert.equal(intoNew.status, 'success', `${intoNew.errorMessage}\n${intoNew.logContent}`);
  assert.equal(intoNew.targetDatabase, renamed);
  assert.deepEqual(await stateOf(renamed), seeded);
  assert.deepEqual(await leftovers(), []);

  // Inputs a database record refuses up front.
  const withPath = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetPath: '/tmp/x' },
  });
  assert.equal(withPath.json.code, 'RESTORE_TARGET_INVALID');
  const badName = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetDatabase: 'a/b' },
  });
  assert.equal(badName.json.code, 'RESTORE_TARGET_INVALID');

  // e. One flipped byte in the stored object: verification and restore fail, nothing is touched.
  await withDb(source, (c) =>
    c.query(`INSERT INTO orders (customer_id, amount, note) VALUES (1, 2, 'after the backup')`),
  );
  const before = await stateOf(source);
  assert.notDeepEqual(before, seeded);
  await flipByte(join(target.dir, record.storagePath), Math.floor(record.fileSize / 2));
  const badQuick = await verify(app, token, record.id, 'quick');
  assert.equal(badQuick.status, 'failed');
  assert.notEqual(badQuick.errorMessage, '');
  const badDeep = await verify(app, token, record.id, 'deep');
  verifyIds.push(badDeep.id);
  assert.equal(badDeep.status, 'failed', 'deep verification refuses the damaged artifact');
  assert.deepEqual(sandboxesOf(await databases(), verifyIds, started), [], 'and drops its sandbox');
  const badRestore = await restore(app, token, record.id, {});
  assert.equal(badRestore.status, 'failed');
  assert.notEqual(badRestore.errorMessage, '');
  assert.deepEqual(await stateOf(source), before, 'the source is unchanged');
  const badNew = await restore(app, token, record.id, { targetDatabase: neverMade });
  assert.equal(badNew.status, 'failed');
  const names = await databases();
  assert.ok(!names.includes(neverMade), 'a failed restore into a new name leaves no database');
  assert.deepEqual(await leftovers(), []);
});

test('mariadb: quick and deep verification, restore in place and into a new name, a corrupted artifact refused before anything runs', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const started = Date.now();
  const u = new URL(url);
  const host = u.hostname;
  const port = Number(u.port || 3306);
  const user = decodeURIComponent(u.username);
  const source = scratch('src');
  const renamed = scratch('new');
  const neverMade = scratch('nomade');
  const verifyIds: number[] = [];
  const admin = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  const databases = async () =>
    (
      (await admin.query('SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA ORDER BY 1'))[0] as Array<{
        name: string;
      }>
    ).map((r) => r.name);
  t.after(async () => {
    for (const db of [source, renamed, neverMade, ...sandboxesOf(await databases(), verifyIds, started)])
      await admin.query(`DROP DATABASE IF EXISTS \`${db}\``);
    await admin.end();
  });
  const tablesOf = async (db: string) =>
    (
      (
        await admin.query(
          `SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1`,
          [db],
        )
      )[0] as Array<{ name: string }>
    ).map((r) => r.name);
  const stateOf = async (db: string, only?: string[]) => {
    const tables = only ?? (await tablesOf(db));
    const rows: Record<string, unknown> = {};
    for (const table of tables)
      rows[table] = (
        await admin.query({ sql: `SELECT * FROM \`${db}\`.\`${table}\` ORDER BY 1`, rowsAsArray: true })
      )[0];
    return { tables, rows };
  };

  await admin.query(`CREATE DATABASE \`${source}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.query(`CREATE TABLE \`${source}\`.customers (
    id int NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(255) NOT NULL, email varchar(255) NULL UNIQUE, joined date NULL
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  await admin.query(`CREATE TABLE \`${source}\`.orders (
    id bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, customer_id int NOT NULL, amount decimal(10,2) NULL, note text NULL,
    payload varbinary(16) NULL, placed datetime NULL,
    CONSTRAINT orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id)
  ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`);
  const customers: Array<Array<string | Date | null>> = Array.from({ length: CUSTOMERS - 1 }, (_, i) => [
    `customer ${i + 1}`,
    `c${i + 1}@example.test`,
    new Date(Date.UTC(2020, 0, 2 + i)),
  ]);
  customers.push([TRICKY_NAME, null, null]);
  await admin.query(`INSERT INTO \`${source}\`.customers (name, email, joined) VALUES ?`, [customers]);
  const orders = Array.from({ length: ORDERS }, (_, i) => {
    const g = i + 1;
    const md5 = createHash('md5').update(String(g)).digest();
    return [
      1 + (g % CUSTOMERS),
      (g * 0.37).toFixed(2),
      g % 11 === 0 ? null : `note ${md5.toString('hex')}`,
      md5,
      new Date(Date.UTC(2024, 0, 1, 0, g * 17)),
    ];
  });
  await admin.query(`INSERT INTO \`${source}\`.orders (customer_id, amount, note, payload, placed) VALUES ?`, [orders]);
  const seeded = await stateOf(source);
  assert.deepEqual(seeded.tables, ['customers', 'orders']);

  const { app, token, target } = await setUp(t);
  const task = await createTask(app, token, {
    name: 'MariaDB Recovery',
    type: 'mysql',
    dbHost: host,
    dbPort: port,
    dbUser: user,
    dbName: source,
    storageTargetIds: [target.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success', record.errorMessage);

  // a. Quick.
  const quick = await verify(app, token, record.id, 'quick');
  assert.equal(quick.status, 'success', quick.errorMessage);
  assert.match(quick.summary, /completion trailer/);
  assert.equal(quick.restoreSeconds, null);

  // b. Deep: into a bp_verify_ scratch database, dropped afterwards.
  const deep = await verify(app, token, record.id, 'deep');
  verifyIds.push(deep.id);
  assert.equal(deep.status, 'success', deep.errorMessage);
  assert.ok(deep.restoreSeconds !== null && deep.restoreSeconds >= 0, `restoreSeconds: ${deep.restoreSeconds}`);
  assert.match(deep.summary, new RegExp(`2 tables, ${CUSTOMERS + ORDERS} rows, equal to the counts at backup time`));
  assert.deepEqual(sandboxesOf(await databases(), verifyIds, started), [], 'the sandbox database was dropped');

  // c. In place (no swap: the whole artifact is checked, then the dump runs against the original,
  // whose DROP TABLE IF EXISTS/CREATE TABLE rebuild every table it holds).
  await admin.query(`DELETE FROM \`${source}\`.orders WHERE id % 3 = 0`);
  await admin.query(`INSERT INTO \`${source}\`.orders (customer_id, amount, note) VALUES (1, 1, 'junk order')`);
  await admin.query(`UPDATE \`${source}\`.customers SET name = 'changed' WHERE id <= 10`);
  await admin.query(`ALTER TABLE \`${source}\`.orders DROP FOREIGN KEY orders_customer`);
  await admin.query(`DROP TABLE \`${source}\`.customers`);
  await admin.query(`CREATE TABLE \`${source}\`.junk (id int PRIMARY KEY)`);
  assert.notDeepEqual(await stateOf(source, seeded.tables).catch(() => 'customers is gone'), seeded);
  const inPlace = await restore(app, token, record.id, {});
  assert.equal(inPlace.status, 'success', `${inPlace.errorMessage}\n${inPlace.logContent}`);
  assert.match(inPlace.logContent, /artifact checked: .* of dump/);
  assert.match(inPlace.logContent, new RegExp(`restoring into ${source}`));
  assert.deepEqual(
    await stateOf(source, seeded.tables),
    seeded,
    'every table of the dump holds exactly the seeded rows again',
  );
  const afterTables = await tablesOf(source);
  // A table created after the backup is not in the dump, so a restore without a swap keeps it.
  assert.deepEqual(
    afterTables.filter((n) => !seeded.tables.includes(n)),
    ['junk'],
  );
  t.diagnostic(`mysql in-place restore leaves tables created after the backup: ${afterTables.join(', ')}`);
  assert.deepEqual(
    (await databases()).filter((n) => n.includes('__bp_')),
    [],
    'no scratch database is used for mysql',
  );

  // d. Into a new name: created, restored.
  const intoNew = await restore(app, token, record.id, { targetDatabase: renamed });
  assert.equal(intoNew.status, 'success', `${intoNew.errorMessage}\n${intoNew.logContent}`);
  assert.match(intoNew.logContent, new RegExp(`created database ${renamed}`));
  assert.deepEqual(await stateOf(renamed), seeded);

  // e. A flipped byte: refused by the whole-artifact check before the mysql client runs.
  await admin.query(`DROP TABLE \`${source}\`.junk`);
  await admin.query(`INSERT INTO \`${source}\`.orders (customer_id, amount, note) VALUES (1, 2, 'after the backup')`);
  const before = await stateOf(source);
  assert.notDeepEqual(before, seeded);
  await flipByte(join(target.dir, record.storagePath), Math.floor(record.fileSize / 2));
  const badQuick = await verify(app, token, record.id, 'quick');
  assert.equal(badQuick.status, 'failed');
  // (No deep verification of the damaged artifact: see the PostgreSQL test.)
  const badRestore = await restore(app, token, record.id, {});
  assert.equal(badRestore.status, 'failed');
  assert.doesNotMatch(badRestore.logContent, /restoring into/, 'the client never ran');
  assert.deepEqual(await stateOf(source), before, 'the source is unchanged');
  const badNew = await restore(app, token, record.id, { targetDatabase: neverMade });
  assert.equal(badNew.status, 'failed');
  assert.ok(!(await databases()).includes(neverMade), 'a refused restore into a new name creates no database');
});

test('sqlite: deep verification, restore over the original file and into another absolute path, a corrupted artifact refused', async (t) => {
  const dir = await tempDir(t);
  const dbPath = join(dir, 'app.db');
  const withDb = <T>(path: string, work: (db: DatabaseSync) => T): T => {
    const db = new DatabaseSync(path);
    try {
      return work(db);
    } finally {
      db.close();
    }
  };
  const stateOf = (path: string) =>
    withDb(path, (db) => {
      const schema = db
        .prepare(`SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`)
        .all()
        .map((r) => ({ ...r }));
      const rows: Record<string, unknown[]> = {};
      for (const { name, type } of schema) {
        if (type === 'table')
          rows[String(name)] = db
            .prepare(`SELECT * FROM "${String(name)}" ORDER BY 1`)
            .all()
            .map((r) => ({ ...r }));
      }
      return { schema, rows };
    });
  withDb(dbPath, (db) => {
    db.exec(`PRAGMA journal_mode = WAL;
      CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
      CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), amount REAL, note TEXT, payload BLOB);
      CREATE INDEX orders_customer ON orders (customer_id);`);
    db.exec('BEGIN');
    const c = db.prepare('INSERT INTO customers (name, email) VALUES (?, ?)');
    for (let g = 1; g < CUSTOMERS; g++) c.run(`customer ${g}`, `c${g}@example.test`);
    c.run(TRICKY_NAME, null);
    const o = db.prepare('INSERT INTO orders (customer_id, amount, note, payload) VALUES (?, ?, ?, ?)');
    for (let g = 1; g <= ORDERS; g++)
      o.run(
        1 + (g % CUSTOMERS),
        g * 0.37,
        g % 11 === 0 ? null : `note ${g}`,
        createHash('md5').update(String(g)).digest(),
      );
    db.exec('COMMIT');
  });
  const seeded = stateOf(dbPath);
  assert.equal(seeded.rows.customers!.length + seeded.rows.orders!.length, CUSTOMERS + ORDERS);

  const { app, token, target } = await setUp(t);
  const task = await createTask(app, token, {
    name: 'SQLite Recovery',
    type: 'sqlite',
    dbPath,
    storageTargetIds: [target.id],
  });
  const record = await runAndWait(app, token, task.id);
  assert.equal(record.status, 'success', record.errorMessage);

  const quick = await verify(app, token, record.id, 'quick');
  assert.equal(quick.status, 'success', quick.errorMessage);
  const deep = await verify(app, token, record.id, 'deep');
  assert.equal(deep.status, 'success', deep.errorMessage);
  assert.ok(deep.restoreSeconds !== null && deep.restoreSeconds >= 0);
  assert.match(deep.summary, new RegExp(`2 tables, ${CUSTOMERS + ORDERS} rows, equal to the counts at backup time`));

  // Over the original, after deleting rows, dropping a table and adding junk.
  withDb(dbPath, (db) => {
    db.exec(`PRAGMA foreign_keys = OFF;
      DELETE FROM orders WHERE id % 3 = 0;
      DROP TABLE customers;
      CREATE TABLE junk (id INTEGER PRIMARY KEY, what TEXT);
      INSERT INTO junk VALUES (1, 'should vanish');`);
  });
  assert.notDeepEqual(stateOf(dbPath), seeded);
  const inPlace = await restore(app, token, record.id, {});
  assert.equal(inPlace.status, 'success', `${inPlace.errorMessage}\n${inPlace.logContent}`);
  assert.deepEqual(stateOf(dbPath), seeded);
  assert.deepEqual(
    (await readdir(dir)).filter((n) => n.endsWith('.restore')),
    [],
    'no temp file is left beside the target',
  );

  // Into another absolute path.
  const elsewhere = join(await tempDir(t), 'copy.db');
  const intoNew = await restore(app, token, record.id, { targetDatabase: elsewhere });
  assert.equal(intoNew.status, 'success', `${intoNew.errorMessage}\n${intoNew.logContent}`);
  assert.deepEqual(stateOf(elsewhere), seeded);
  const relative = await call(app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token,
    body: { targetDatabase: 'relative/copy.db' },
  });
  assert.equal(relative.json.code, 'RESTORE_TARGET_INVALID');

  // A flipped byte: refused, the file keeps its current content.
  withDb(dbPath, (db) => db.exec(`INSERT INTO orders (customer_id, amount, note) VALUES (1, 2, 'after the backup')`));
  const before = stateOf(dbPath);
  const bytesBefore = await readFile(dbPath);
  await flipByte(join(target.dir, record.storagePath), Math.floor(record.fileSize / 2));
  assert.equal((await verify(app, token, record.id, 'quick')).status, 'failed');
  assert.equal((await verify(app, token, record.id, 'deep')).status, 'failed');
  const badRestore = await restore(app, token, record.id, {});
  assert.equal(badRestore.status, 'failed');
  assert.deepEqual(stateOf(dbPath), before);
  assert.deepEqual(await readFile(dbPath), bytesBefore);
  assert.deepEqual(
    (await readdir(dir)).filter((n) => n.endsWith('.restore')),
    [],
  );
});
