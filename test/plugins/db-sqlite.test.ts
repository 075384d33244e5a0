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
import { runDatabaseContract, type Dataset } from '../contracts/database-contract.ts';
import { providerErrorKind, type ProviderDeps } from '../../core/plugin-host/contracts.ts';
import { isPlugin } from '../../core/plugin-host/define-plugin.ts';
import dbSqlitePlugin from '../../plugins/db-sqlite/index.ts';
import { sqliteType } from '../../plugins/db-sqlite/sqlite-driver.ts';

const run = promisify(execFile);
const deps: ProviderDeps = { tempDir: tmpdir(), log: { info: () => undefined, warn: () => undefined, error: () => undefined } };

function withDb<T>(path: string, work: (db: DatabaseSync) => T): T {
  const db = new DatabaseSync(path);
  try { return work(db); } finally { db.close(); }
}

runDatabaseContract('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'backplane-sqlite-contract-'));
  const main = join(dir, 'app.db');
  let first = true;
  return {
    instance: await sqliteType.create({ path: main }, deps),
    missingDatabase: 'not-this-file.db',
    // The first database is the configured file; later ones are sandbox files beside it.
    async createDatabase() {
      if (first) { first = false; return main; }
      return join(dir, `scratch-${randomBytes(4).toString('hex')}.db`);
    },
    async seed(path: string, data: Dataset) {
      withDb(path, (db) => {
        db.exec('PRAGMA journal_mode = WAL'); // the live file has a WAL; the backup must include it
        for (const table of data.tables) {
          const [id, a, b] = table.columns as [string, string, string];
          db.exec(`CREATE TABLE ${table.name} (${id} INTEGER PRIMARY KEY, ${a} TEXT NOT NULL, ${b} ${table.name === 'people' ? 'TEXT' : 'INTEGER'})`);
          const insert = db.prepare(`INSERT INTO ${table.name} VALUES (?, ?, ?)`);
          db.exec('BEGIN');
          for (const row of table.rows) insert.run(...row);
          db.exec('COMMIT');
        }
      });
    },
    rows: async (path, table) => withDb(path, (db) => db.prepare(`SELECT * FROM ${table} ORDER BY id`).all().map((r) => Object.values(r))),
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
  await assert.rejects(instance.restore(Readable.from([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]), { database: 'app.db' }), (err) => providerErrorKind(err) === 'permanent');
  assert.deepEqual(await readFile(target), before, 'the target is unchanged');
  assert.deepEqual((await readdir(dir)).sort(), ['app.db', 'notes.txt'], 'no temp file left behind');
  await assert.rejects(instance.restore(Readable.from([Buffer.from('x')]), { database: 'relative.db' }), (err) => providerErrorKind(err) === 'permanent');

  // a good restore over the configured file, by name
  const source = join(dir, 'source.db');
  withDb(source, (db) => db.exec("CREATE TABLE t (x); INSERT INTO t VALUES ('new')"));
  const { stream, done } = await (await sqliteType.create({ path: source }, deps)).dump({ databases: ['source.db'] });
  await instance.restore(stream, { database: 'app.db' });
  await done;
  assert.deepEqual(withDb(target, (db) => db.prepare('SELECT x FROM t').all().map((r) => r.x)), ['new']);
  assert.ok(isPlugin(dbSqlitePlugin));
  assert.equal(dbSqlitePlugin.name, 'db-sqlite');
});
