import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import pg from 'pg';
import { closedPort, runDatabaseContract, type Dataset } from '../contracts/database-contract.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { ProviderError, providerErrorKind, type ProviderDeps } from '../../core/plugin-host/contracts.ts';
import { isPlugin } from '../../core/plugin-host/define-plugin.ts';
import dbPostgresPlugin from '../../plugins/db-postgres/index.ts';
import { PostgresDriver, postgresType } from '../../plugins/db-postgres/postgres-driver.ts';
import { dbnameArg, pgDumpArgs, pgEnv, psqlRestoreArgs } from '../../plugins/db-postgres/postgres-argv.ts';
import { parsePostgresConfig } from '../../plugins/db-postgres/postgres-config.ts';
import { classifyPgStderr } from '../../plugins/db-postgres/postgres-errors.ts';

const run = promisify(execFile);
const deps: ProviderDeps = { tempDir: tmpdir(), log: { info: () => undefined, warn: () => undefined, error: () => undefined } };
const unique = (what: string) => `bp_test_${process.pid}_${what}_${randomBytes(4).toString('hex')}`;

runDatabaseContract('postgresql', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return undefined;
  const parsed = new URL(url);
  const host = parsed.hostname;
  const port = Number(parsed.port || 5432);
  const user = decodeURIComponent(parsed.username);
  // The test server trusts every connection, so this password is never checked; it is here so
  // that the argv checks have a secret to look for (it reaches pg_dump through PGPASSWORD).
  const secret = `bp-secret-${randomBytes(8).toString('hex')}`;
  const config = { host, port, user, password: secret, database: parsed.pathname.slice(1) || 'postgres', connectTimeoutSeconds: 5 };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const created: string[] = [];
  const withDb = async <T>(db: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host, port, user, database: db });
    await client.connect();
    try { return await work(client); } finally { await client.end(); }
  };
  const unreachablePort = await closedPort();
  return {
    instance: await postgresType.create(config, deps),
    secret,
    spawnsChild: true,
    timeoutMs: 5_000,
    missingDatabase: unique('missing'),
    async createDatabase() {
      const name = unique('db');
      await admin.query(`CREATE DATABASE "${name}"`);
      created.push(name);
      return name;
    },
    async seed(db: string, data: Dataset) {
      await withDb(db, async (c) => {
        for (const table of data.tables) {
          const [id, a, b] = table.columns as [string, string, string];
          const bType = table.name === 'people' ? 'text' : 'integer';
          await c.query(`CREATE TABLE ${table.name} (${id} integer PRIMARY KEY, ${a} text NOT NULL, ${b} ${bType})`);
          if (table.rows.length === 0) continue;
          const cols = [0, 1, 2].map((i) => table.rows.map((r) => r[i] ?? null));
          await c.query(`INSERT INTO ${table.name} SELECT * FROM unnest($1::int[], $2::text[], $3::${bType}[])`, cols);
        }
      });
    },
    rows: (db, table) => withDb(db, async (c) => (await c.query({ text: `SELECT * FROM ${table} ORDER BY id`, rowMode: 'array' })).rows),
    async stockRestore(file, db) {
      await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', host, '-p', String(port), '-U', user, '-d', db, '-f', file], { maxBuffer: 16 * 1024 * 1024 });
    },
    async badCredentials() {
      // trust auth never checks a password, so the refused login is a role that does not exist
      return postgresType.create({ ...config, user: unique('no_such_role') }, deps);
    },
    unreachable: () => new PostgresDriver(parsePostgresConfig({ ...config, port: unreachablePort }), deps),
    argv: (db) => { const c = parsePostgresConfig(config); return [pgDumpArgs(c, db), psqlRestoreArgs(c, db)]; },
    async cleanup() {
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
});

test('postgresql: argv and environment carry the password only in PGPASSWORD', () => {
  const config = parsePostgresConfig({ host: 'db.example', user: 'backup', password: 'hunter2-secret', database: 'app' });
  const dump = pgDumpArgs(config, 'app');
  assert.deepEqual(dump, ['-h', 'db.example', '-p', '5432', '-U', 'backup', '-w', '-d', "dbname='app'", '--format=plain', '--no-owner', '--no-privileges', '--encoding=UTF8']);
  assert.ok(psqlRestoreArgs(config, 'app').includes('ON_ERROR_STOP=1'));
  const env = pgEnv({ PATH: '/bin', PGHOST: 'elsewhere', PGPASSWORD: 'inherited' }, config);
  assert.equal(env.PGPASSWORD, 'hunter2-secret');
  assert.equal(env.PGHOST, undefined, 'inherited PG* variables never redirect the tools');
  assert.equal(env.PATH, '/bin');
  assert.equal(dbnameArg("host=evil' x\\"), "dbname='host=evil\\' x\\\\'", 'a name never becomes a connection string');
});

test('postgresql: stderr and config errors map onto kinds', () => {
  assert.equal(classifyPgStderr('pg_dump: error: connection to server failed: FATAL:  password authentication failed for user "x"'), 'auth');
  assert.equal(classifyPgStderr('FATAL:  role "nobody" does not exist'), 'auth');
  assert.equal(classifyPgStderr('FATAL:  database "nope" does not exist'), 'not_found');
  assert.equal(classifyPgStderr('connection to server at "127.0.0.1", port 1 failed: Connection refused'), 'transient');
  assert.equal(classifyPgStderr('ERROR:  syntax error at or near "x"'), 'permanent');
  for (const bad of [{}, { host: 'h' }, { host: 'h', user: 'u', port: 0 }, { host: 'h', user: 'u', port: '5432' }]) {
    assert.throws(() => parsePostgresConfig(bad), (err) => err instanceof ProviderError && err.kind === 'permanent', JSON.stringify(bad));
  }
  assert.deepEqual(postgresType.secretFields, ['password']);
  assert.deepEqual(postgresType.aliases, ['postgresql', 'pgsql']);
});

test('postgresql: discover marks the system databases; dump refuses several databases at once', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const u = new URL(url);
  const instance = await postgresType.create({ host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username) }, deps);
  const found = await instance.discover();
  for (const name of ['postgres', 'template0', 'template1']) assert.equal(found.find((d) => d.name === name)?.system, true, name);
  await assert.rejects(instance.dump({ databases: ['a', 'b'] }), (err) => providerErrorKind(err) === 'permanent');
  assert.ok(isPlugin(dbPostgresPlugin));
  assert.equal(dbPostgresPlugin.name, 'db-postgres');
});
