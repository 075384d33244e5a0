import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import pg from 'pg';
import { closedPort, runDatabaseContract, type Dataset } from '@backplane/plugin-testkit';
import { requireOrSkip } from '../helpers/databases.ts';
import { passwordStandIn } from '../helpers/pg-password-stand-in.ts';
import { ProviderError, providerErrorKind, type ProviderDeps, isPlugin } from '@backplane/plugin-api';
import dbPostgresPlugin from '../../plugins/db-postgres/index.ts';
import { PostgresDriver, postgresType } from '../../plugins/db-postgres/postgres-driver.ts';
import {
  dbnameArg,
  pgDumpArgs,
  pgEnv,
  pgpassContent,
  psqlRestoreArgs,
} from '../../plugins/db-postgres/postgres-argv.ts';
import { parsePostgresConfig } from '../../plugins/db-postgres/postgres-config.ts';
import { classifyPgStderr } from '../../plugins/db-postgres/postgres-errors.ts';
import {
  checkedPgDatabaseName,
  checkPgDump,
  oldDatabaseName,
  quoteIdent,
  truncateUtf8,
} from '../../plugins/db-postgres/postgres-sql.ts';

const run = promisify(execFile);
const deps: ProviderDeps = {
  tempDir: tmpdir(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};
const unique = (what: string) => `bp_test_${process.pid}_${what}_${randomBytes(4).toString('hex')}`;

runDatabaseContract('postgresql', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return undefined;
  const parsed = new URL(url);
  const host = parsed.hostname;
  const port = Number(parsed.port || 5432);
  const user = decodeURIComponent(parsed.username);
  // The test server trusts every connection, so this password is never checked; it is here so
  // that the argv checks have a secret to look for (it reaches pg_dump through a pgpass file).
  const secret = `bp-secret-${randomBytes(8).toString('hex')}`;
  const config = {
    host,
    port,
    user,
    password: secret,
    database: parsed.pathname.slice(1) || 'postgres',
    connectTimeoutSeconds: 5,
  };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const created: string[] = [];
  const withDb = async <T>(db: string, work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ host, port, user, database: db });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const unreachablePort = await closedPort();
  const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
  return {
    type: postgresType,
    instance: await postgresType.create(config, deps),
    secret,
    spawnsChild: true,
    timeoutMs: 5_000,
    dumpHasTrailer: true,
    missingDatabase: unique('missing'),
    statsKey: (table) => `public.${table}`,
    scratchName: (tricky) => unique(tricky ? 'q"x y' : 'scratch'),
    async createDatabase(name = unique('db')) {
      await admin.query(`CREATE DATABASE ${q(name)}`);
      created.push(name);
      return name;
    },
    async removeDatabase(name) {
      await admin.query(`DROP DATABASE IF EXISTS ${q(name)} WITH (FORCE)`);
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
    rows: (db, table) =>
      withDb(db, async (c) => (await c.query({ text: `SELECT * FROM ${table} ORDER BY id`, rowMode: 'array' })).rows),
    async stockRestore(file, db) {
      await run(
        'psql',
        ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', host, '-p', String(port), '-U', user, '-d', db, '-f', file],
        { maxBuffer: 16 * 1024 * 1024 },
      );
    },
    async badCredentials() {
      // trust auth never checks a password, so the refused login is a role that does not exist
      return postgresType.create({ ...config, user: unique('no_such_role') }, deps);
    },
    unreachable: () => new PostgresDriver(parsePostgresConfig({ ...config, port: unreachablePort }), deps),
    argv: (db) => {
      const c = parsePostgresConfig(config);
      return [pgDumpArgs(c, db), psqlRestoreArgs(c, db)];
    },
    async cleanup() {
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${q(name)} WITH (FORCE)`);
      await admin.end();
    },
  };
});

test('postgresql: no password in argv or environment; the environment names a pgpass file, and holds nothing else of ours', () => {
  const config = parsePostgresConfig({
    host: 'db.example',
    user: 'backup',
    password: 'hunter2-secret',
    database: 'app',
  });
  const dump = pgDumpArgs(config, 'app');
  assert.deepEqual(dump, [
    '-h',
    'db.example',
    '-p',
    '5432',
    '-U',
    'backup',
    '-w',
    '-d',
    "dbname='app'",
    '--format=plain',
    '--no-owner',
    '--no-privileges',
    '--encoding=UTF8',
  ]);
  assert.ok(psqlRestoreArgs(config, 'app').includes('ON_ERROR_STOP=1'));
  const parent = {
    PATH: '/bin',
    HOME: '/var/lib/backplane',
    LC_ALL: 'C.UTF-8',
    PGHOST: 'elsewhere',
    PGPASSWORD: 'inherited',
    BACKPLANE_SECRET_KEY: 'the-master-key',
    BACKPLANE_DATABASE_URL: 'postgres://backplane:pw@db/backplane',
    NODE_OPTIONS: '--require /tmp/x.js',
  };
  assert.deepEqual(pgEnv(parent, config, '/data/tmp/secret-abc/pgpass'), {
    PATH: '/bin',
    HOME: '/var/lib/backplane',
    LC_ALL: 'C.UTF-8',
    PGCONNECT_TIMEOUT: String(config.connectTimeoutSeconds),
    PGCLIENTENCODING: 'UTF8',
    PGPASSFILE: '/data/tmp/secret-abc/pgpass',
  });
  assert.equal(pgEnv(parent, config).PGPASSFILE, undefined, 'no password: no file (libpq may use ~/.pgpass)');
  assert.equal(dbnameArg("host=evil' x\\"), "dbname='host=evil\\' x\\\\'", 'a name never becomes a connection string');
  // libpq reads `:` as the field separator and `\` as the escape, anywhere in the line.
  assert.equal(pgpassContent('a:b\\c#d e'), '*:*:*:*:a\\:b\\\\c#d e\n');
  for (const broken of ['two\nlines', 'carriage\rreturn', 'nul\0byte'])
    assert.throws(
      () => pgpassContent(broken),
      (err) => providerErrorKind(err) === 'permanent' && !(err as Error).message.includes(broken),
    );
});

test('postgresql: pg_dump and psql send the password the pgpass file holds, and the file is gone once they exited', async (t) => {
  const standIn = await passwordStandIn(t);
  const scratch = await mkdtemp(join(tmpdir(), 'bp-pgpass-'));
  t.after(() => rm(scratch, { recursive: true, force: true }));
  // Every character pgpass treats specially, and some a shell or an option file would.
  const password = `p:a\\ss:#w"o'rd ünï ${randomBytes(4).toString('hex')} `;
  const driver = await postgresType.create(
    { host: '127.0.0.1', port: standIn.port, user: 'backup', password, database: 'app', connectTimeoutSeconds: 5 },
    { ...deps, tempDir: scratch },
  );
  const dump = await driver.dump({ databases: ['app'] });
  dump.stream.on('error', () => undefined).resume(); // the same failure as `done`'s
  await assert.rejects(
    dump.done,
    (err) => providerErrorKind(err) === 'auth' && !(err as Error).message.includes(password),
  );
  await assert.rejects(driver.restore(Readable.from(['SELECT 1;\n']), { database: 'app' }), (err) => {
    return providerErrorKind(err) === 'auth';
  });
  assert.deepEqual(standIn.received, [password, password], 'pg_dump, then psql, sent exactly the stored password');
  assert.deepEqual(await readdir(scratch), [], 'both password files were removed');
});

test('postgresql: stderr and config errors map onto kinds', () => {
  assert.equal(
    classifyPgStderr(
      'pg_dump: error: connection to server failed: FATAL:  password authentication failed for user "x"',
    ),
    'auth',
  );
  assert.equal(classifyPgStderr('FATAL:  role "nobody" does not exist'), 'auth');
  assert.equal(classifyPgStderr('FATAL:  database "nope" does not exist'), 'not_found');
  assert.equal(classifyPgStderr('connection to server at "127.0.0.1", port 1 failed: Connection refused'), 'transient');
  assert.equal(classifyPgStderr('ERROR:  syntax error at or near "x"'), 'permanent');
  for (const bad of [{}, { host: 'h' }, { host: 'h', user: 'u', port: 0 }, { host: 'h', user: 'u', port: '5432' }]) {
    assert.throws(
      () => parsePostgresConfig(bad),
      (err) => err instanceof ProviderError && err.kind === 'permanent',
      JSON.stringify(bad),
    );
  }
  assert.deepEqual(postgresType.secretFields, ['password']);
  assert.deepEqual(postgresType.aliases, ['postgresql', 'pgsql']);
});

test('postgresql: discover marks the system databases; dump refuses several databases at once', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const u = new URL(url);
  const instance = await postgresType.create(
    { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username) },
    deps,
  );
  const found = await instance.discover();
  for (const name of ['postgres', 'template0', 'template1'])
    assert.equal(found.find((d) => d.name === name)?.system, true, name);
  await assert.rejects(instance.dump({ databases: ['a', 'b'] }), (err) => providerErrorKind(err) === 'permanent');
  assert.ok(isPlugin(dbPostgresPlugin));
  assert.equal(dbPostgresPlugin.name, 'db-postgres');
});

test('postgresql: identifiers are quoted, names checked in bytes, old names kept within 63 bytes', () => {
  assert.equal(quoteIdent('a"b'), '"a""b"');
  assert.equal(quoteIdent('x"; DROP DATABASE y; --'), '"x""; DROP DATABASE y; --"');
  assert.equal(checkedPgDatabaseName('a'.repeat(63)), 'a'.repeat(63));
  for (const bad of ['', 'a'.repeat(64), 'é'.repeat(32), 'nul\0byte']) {
    assert.throws(
      () => checkedPgDatabaseName(bad),
      (err) => err instanceof ProviderError && err.kind === 'permanent',
      JSON.stringify(bad),
    );
  }
  assert.equal(truncateUtf8('aé🙂b', 3), 'aé');
  assert.equal(truncateUtf8('aé🙂b', 6), 'aé');
  assert.equal(truncateUtf8('aé🙂b', 7), 'aé🙂');
  assert.equal(oldDatabaseName('app', 'cafe0123'), 'app__bp_old_cafe0123');
  for (const target of ['a'.repeat(63), 'é'.repeat(31), `${'a'.repeat(45)}🙂🙂`]) {
    const old = oldDatabaseName(target, 'cafe0123');
    assert.ok(Buffer.byteLength(old) <= 63, `${old}: ${Buffer.byteLength(old)} bytes`);
    assert.ok(old.endsWith('__bp_old_cafe0123') && !old.includes('\uFFFD'));
    assert.ok(target.startsWith(old.slice(0, -'__bp_old_cafe0123'.length)));
  }
  assert.equal(postgresType.atomicRestore, true);
});

test('postgresql: checkDump wants the header and the completion trailer at the end', () => {
  const head = Buffer.from('--\n-- PostgreSQL database dump\n--\n\n\\restrict abc\n\nSET statement_timeout = 0;\n');
  const trailer = '--\n-- PostgreSQL database dump complete\n--\n\n';
  assert.equal(
    checkPgDump(head, Buffer.from(`COPY t FROM stdin;\n1\n\\.\n\n${trailer}\\unrestrict abc\n\n`)),
    undefined,
  );
  assert.equal(checkPgDump(head, Buffer.from(`\\.\n\n${trailer}`)), undefined, 'pg_dump before \\restrict');
  assert.equal(
    checkPgDump(head, Buffer.from('\\.\r\n\r\n--\r\n-- PostgreSQL database dump complete\r\n--\r\n')),
    undefined,
    'CRLF line ends',
  );
  assert.match(checkPgDump(head, Buffer.from('COPY t FROM stdin;\n1\n2\n')) ?? '', /no completion trailer/);
  assert.match(
    checkPgDump(head, Buffer.from(`${trailer}3\n4\n`)) ?? '',
    /goes on after/,
    'a row that looks like the trailer',
  );
  assert.match(
    checkPgDump(head, Buffer.from('x-- PostgreSQL database dump complete\n')) ?? '',
    /no completion trailer/,
  );
  assert.match(checkPgDump(Buffer.from('-- MySQL dump 10.13\n'), Buffer.from(trailer)) ?? '', /no pg_dump header/);
});

test('postgresql: replace ends sessions, works from the configured database, counts every schema', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const u = new URL(url);
  const base = {
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    connectTimeoutSeconds: 5,
  };
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const target = unique('target');
  const source = unique('source');
  t.after(async () => {
    for (const name of [target, source]) await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    await admin.end();
  });
  // The driver is configured with the target as its own database: it must run the swap elsewhere.
  const instance = await postgresType.create({ ...base, database: target }, deps);
  assert.equal(await instance.ensureDatabase!(target), true);
  assert.equal(await instance.ensureDatabase!(source), true);
  const connect = async (db: string) => {
    const c = new pg.Client({ ...base, database: db });
    c.on('error', () => undefined); // it is terminated by the swap
    await c.connect();
    return c;
  };
  const setup = await connect(source);
  await setup.query(`CREATE SCHEMA "Sales"; CREATE TABLE "Sales"."Order ""x""" (id int); INSERT INTO "Sales"."Order ""x""" VALUES (1), (2);
    CREATE TABLE public.measures (at int, v int) PARTITION BY RANGE (at);
    CREATE TABLE public.measures_1 PARTITION OF public.measures FOR VALUES FROM (0) TO (10);
    CREATE TABLE public.measures_2 PARTITION OF public.measures FOR VALUES FROM (10) TO (20);
    INSERT INTO public.measures VALUES (1, 1), (11, 1), (12, 1);
    CREATE VIEW public.v AS SELECT 1 AS one; CREATE TEMP TABLE scratch (x int);`);
  const expected = { 'Sales.Order "x"': 2, 'public.measures_1': 1, 'public.measures_2': 2 };
  assert.deepEqual(
    await instance.tableStats!(source),
    expected,
    'user schemas, partitions once, no views or temp tables',
  );

  // idle sessions on both databases do not stop the swap
  const onTarget = await connect(target);
  await onTarget.query('CREATE TABLE old_data (id int)');
  await instance.replaceDatabase!(target, source);
  await setup.end().catch(() => undefined);
  await onTarget.end().catch(() => undefined);
  assert.deepEqual(await instance.tableStats!(target), expected);
  const names = (await instance.discover()).map((d) => d.name);
  assert.ok(!names.includes(source), 'the source name is gone');
  assert.deepEqual(
    names.filter((n) => n.startsWith(`${target}__bp_old_`)),
    [],
    'the old target was dropped',
  );
  await assert.rejects(instance.tableStats!(source), (err) => providerErrorKind(err) === 'not_found');

  await assert.rejects(instance.replaceDatabase!(target, target), (err) => providerErrorKind(err) === 'permanent');
  await assert.rejects(instance.replaceDatabase!('template1', target), (err) => providerErrorKind(err) === 'permanent');
  await assert.rejects(instance.dropDatabase!('template0'), (err) => providerErrorKind(err) === 'permanent');
  await assert.rejects(instance.replaceDatabase!(target, source), (err) => providerErrorKind(err) === 'not_found');
  assert.deepEqual(await instance.tableStats!(target), expected, 'a refused replace leaves the target');
  await instance.dropDatabase!(target); // its own configured database: dropped from elsewhere
  assert.equal((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [target])).rowCount, 0);
});

test('postgresql: errors of the new operations go through the error mapping without the password', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const u = new URL(url);
  const secret = `bp-secret-${randomBytes(6).toString('hex')}`;
  // A role that does not exist: refused at login, whatever the operation.
  const instance = await postgresType.create(
    { host: u.hostname, port: Number(u.port || 5432), user: unique('nobody'), password: secret },
    deps,
  );
  for (const op of [
    () => instance.ensureDatabase!(unique('x')),
    () => instance.dropDatabase!(unique('x')),
    () => instance.tableStats!('postgres'),
    () => instance.replaceDatabase!(unique('a'), unique('b')),
  ]) {
    await assert.rejects(
      op(),
      (err) =>
        err instanceof ProviderError &&
        err.kind === 'auth' &&
        !err.message.includes(secret) &&
        err.message.startsWith('postgresql: '),
    );
  }
});
