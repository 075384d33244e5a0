import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import { runDatabaseContract, type Dataset } from '@backplane/plugin-testkit';
import { providerErrorKind, type ProviderDeps, isPlugin } from '@backplane/plugin-api';
import dbSqlitePlugin from '../../plugins/db-sqlite/index.ts';
import { sqliteType } from '../../plugins/db-sqlite/sqlite-driver.ts';
import { checkSqliteDump } from '../../plugins/db-sqlite/sqlite-check.ts';

const run = promisify(execFile);
const deps: ProviderDeps = {
  tempDir: tmpdir(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};

function withDb<T>(path: string, work: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

runDatabaseContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-sqlite-contract-'));
  const main = join(dir, 'app.db');
  let first = true;
  return {
    type: sqliteType,
    instance: await sqliteType.create({ path: main }, deps),
    missingDatabase: 'not-this-file.db',
    // A page-for-page copy has no trailer: only a cut within the first 64 KiB shows (see sqlite-check.ts).
    dumpHasTrailer: false,
    scratchName: (tricky) => join(dir, `scratch${tricky ? ' "q\'x' : ''}-${randomBytes(4).toString('hex')}.db`),
    // The first database is the configured file; later ones are sandbox files beside it, which
    // `seed` (or a restore) creates.
    async createDatabase(name) {
      if (name !== undefined) return name;
      if (first) {
        first = false;
        return main;
      }
      return join(dir, `scratch-${randomBytes(4).toString('hex')}.db`);
    },
    async removeDatabase(path) {
      for (const suffix of ['', '-wal', '-shm']) await rm(`${path}${suffix}`, { force: true });
    },
    async seed(path: string, data: Dataset) {
      withDb(path, (db) => {
        db.exec('PRAGMA journal_mode = WAL'); // the live file has a WAL; the backup must include it
        for (const table of data.tables) {
          const [id, a, b] = table.columns as [string, string, string];
          db.exec(
            `CREATE TABLE ${table.name} (${id} INTEGER PRIMARY KEY, ${a} TEXT NOT NULL, ${b} ${table.name === 'people' ? 'TEXT' : 'INTEGER'})`,
          );
          const insert = db.prepare(`INSERT INTO ${table.name} VALUES (?, ?, ?)`);
          db.exec('BEGIN');
          for (const row of table.rows) insert.run(...row);
          db.exec('COMMIT');
        }
      });
    },
    rows: async (path, table) =>
      withDb(path, (db) =>
        db
          .prepare(`SELECT * FROM ${table} ORDER BY id`)
          .all()
          .map((r) => Object.values(r)),
      ),
    async stockRestore(file, path) {
      await run('sqlite3', [path, `.restore '${file.replace(/'/g, "''")}'`]);
    },
    async cleanup() {
      await rm(dir, { recursive: true, force: true });
    },
  };
});

test('sqlite: a missing file fails with not_found; a garbage restore leaves the target untouched', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-sqlite-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const missing = await sqliteType.create({ path: join(dir, 'missing.db') }, deps);
  assert.equal((await missing.testConnection()).success, false);
  await assert.rejects(missing.discover(), (err) => providerErrorKind(err) === 'not_found');
  await assert.rejects(missing.dump({ databases: [] }), (err) => providerErrorKind(err) === 'not_found');

  const target = join(dir, 'app.db');
  withDb(target, (db) => db.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('keep')"));
  const before = await readFile(target);
  const instance = await sqliteType.create({ path: target }, deps);
  await writeFile(join(dir, 'notes.txt'), 'not a db');
  await assert.rejects(
    instance.restore(Readable.from([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]), { database: 'app.db' }),
    (err) => providerErrorKind(err) === 'permanent',
  );
  assert.deepEqual(await readFile(target), before, 'the target is unchanged');
  assert.deepEqual((await readdir(dir)).sort(), ['app.db', 'notes.txt'], 'no temp file left behind');
  await assert.rejects(
    instance.restore(Readable.from([Buffer.from('x')]), { database: 'relative.db' }),
    (err) => providerErrorKind(err) === 'permanent',
  );

  // a good restore over the configured file, by name
  const source = join(dir, 'source.db');
  withDb(source, (db) => db.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('new')"));
  const { stream, done } = await (await sqliteType.create({ path: source }, deps)).dump({ databases: ['source.db'] });
  await instance.restore(stream, { database: 'app.db' });
  await done;
  assert.deepEqual(
    withDb(target, (db) =>
      db
        .prepare('SELECT x FROM t')
        .all()
        .map((r) => r.x),
    ),
    ['new'],
  );
  assert.ok(isPlugin(dbSqlitePlugin));
  assert.equal(dbSqlitePlugin.name, 'db-sqlite');
});

test('sqlite: checkDump reads the header, and the page count when the whole file is visible', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-sqlite-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'small.db');
  withDb(path, (db) => db.exec("CREATE TABLE a (x); CREATE TABLE b (y); INSERT INTO a VALUES ('one')"));
  const { stream, done } = await (await sqliteType.create({ path }, deps)).dump({ databases: [] });
  const whole = Buffer.concat((await stream.toArray()) as Buffer[]);
  await done;
  assert.ok(whole.length < 64 * 1024 && whole.length >= 3 * 4096, `${whole.length} bytes`);
  assert.equal(checkSqliteDump(whole, whole), undefined, 'a complete small file');
  const pageSize = whole.readUInt16BE(16);
  const cut = whole.subarray(0, whole.length - pageSize);
  assert.match(checkSqliteDump(cut, cut) ?? '', /pages its header records: it was cut short/, 'cut at a page boundary');
  const odd = whole.subarray(0, whole.length - 100);
  assert.match(checkSqliteDump(odd, odd) ?? '', /whole number/);
  assert.match(checkSqliteDump(whole.subarray(0, 50), whole.subarray(0, 50)) ?? '', /shorter than the SQLite header/);
  const badPage = Buffer.from(whole);
  badPage.writeUInt16BE(1000, 16);
  assert.match(checkSqliteDump(badPage, badPage) ?? '', /invalid page size 1000/);
  const big = Buffer.from(whole.subarray(0, 100));
  big.writeUInt16BE(1, 16); // 65536
  assert.equal(
    checkSqliteDump(big, Buffer.alloc(65536)),
    undefined,
    'page size 1 means 65536; a large file shows its header only',
  );
  assert.match(
    checkSqliteDump(Buffer.from('SQLite format 2\0'.padEnd(100, ' ')), whole) ?? '',
    /not a SQLite database/,
  );
  assert.equal(sqliteType.atomicRestore, true);
});

test('sqlite: tableStats by name or path, read-only, without sqlite_* or virtual tables', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-sqlite-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'app.db');
  withDb(path, (db) =>
    db.exec(`
    CREATE TABLE "odd ""name""" (id INTEGER PRIMARY KEY AUTOINCREMENT, v);
    INSERT INTO "odd ""name""" (v) VALUES (1), (2);
    CREATE TABLE sqliteish (x); INSERT INTO sqliteish VALUES (1);
    CREATE VIEW v AS SELECT 1;
    CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs VALUES ('hello');`),
  );
  const instance = await sqliteType.create({ path }, deps);
  const stats = await instance.tableStats!('app.db');
  assert.equal(stats['odd "name"'], 2);
  assert.equal(stats.sqliteish, 1, 'only the sqlite_ prefix is excluded, not every name starting with sqlite');
  assert.equal(stats.sqlite_sequence, undefined);
  assert.equal(stats.docs, undefined, 'the virtual table itself is not counted');
  assert.equal(stats.docs_content, 1, 'its shadow tables are');
  assert.deepEqual(await instance.tableStats!(path), stats, 'an absolute path works too');
  await assert.rejects(instance.tableStats!(join(dir, 'missing.db')), (err) => providerErrorKind(err) === 'not_found');
  await assert.rejects(instance.tableStats!('relative.db'), (err) => providerErrorKind(err) === 'permanent');
  assert.deepEqual((await readdir(dir)).sort(), ['app.db'], 'reading created nothing (no -wal, no missing.db)');
  for (const member of ['ensureDatabase', 'dropDatabase', 'replaceDatabase'] as const)
    assert.equal(instance[member], undefined, member);
});
