import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import mysql from 'mysql2/promise';
import { closedPort, runDatabaseContract, type Dataset } from '@backplane/plugin-testkit';
import { requireOrSkip } from '../helpers/databases.ts';
import { ProviderError, providerErrorKind, type ProviderDeps, isPlugin } from '@backplane/plugin-api';
import dbMysqlPlugin from '../../plugins/db-mysql/index.ts';
import { MysqlDriver, mysqlType } from '../../plugins/db-mysql/mysql-driver.ts';
import { mysqldumpArgs, mysqlEnv, mysqlOptionFile, mysqlRestoreArgs } from '../../plugins/db-mysql/mysql-argv.ts';
import { parseMysqlConfig } from '../../plugins/db-mysql/mysql-config.ts';
import { classifyMysqlStderr } from '../../plugins/db-mysql/mysql-errors.ts';
import { checkMysqlDump, quoteIdent } from '../../plugins/db-mysql/mysql-sql.ts';

const deps: ProviderDeps = {
  tempDir: tmpdir(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};
const unique = (what: string) => `bp_test_${process.pid}_${what}_${randomBytes(4).toString('hex')}`;

runDatabaseContract('mysql', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return undefined;
  const parsed = new URL(url);
  const host = parsed.hostname;
  const port = Number(parsed.port || 3306);
  const admin = await mysql.createConnection({ uri: url, multipleStatements: false, charset: 'utf8mb4' });
  // The driver runs as a user of its own with a password (dropped in cleanup), so wrong-password
  // and argv checks have a real secret; it may use only the test's databases.
  const user = unique('user').slice(0, 32);
  const secret = `bp-secret-${randomBytes(8).toString('hex')}`;
  const prefix = `bp_test_${process.pid}_`;
  await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', secret]);
  await admin.query(`GRANT ALL PRIVILEGES ON \`${prefix.replace(/_/g, '\\_')}%\`.* TO ?@?`, [user, '%']);
  // Dumping routines someone else defined needs to read their bodies: MariaDB before 11.3 has no
  // SHOW CREATE ROUTINE privilege, so backup users are given SELECT on mysql.proc (documented).
  await admin.query('GRANT SELECT ON mysql.proc TO ?@?', [user, '%']);
  const config = { host, port, user, password: secret, connectTimeoutSeconds: 5 };
  const created: string[] = [];
  const unreachablePort = await closedPort();
  const stockTool = (file: string, db: string) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        'mysql',
        [
          '--no-defaults',
          `--host=${host}`,
          `--port=${port}`,
          '--user=root',
          '--protocol=TCP',
          '--default-character-set=utf8mb4',
          db,
        ],
        { stdio: ['pipe', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`mysql exited ${code}: ${stderr}`))));
      createReadStream(file).pipe(child.stdin);
    });
  const q = (name: string) => `\`${name.replace(/`/g, '``')}\``;
  return {
    type: mysqlType,
    instance: await mysqlType.create(config, deps),
    secret,
    spawnsChild: true,
    timeoutMs: 5_000,
    dumpHasTrailer: true,
    missingDatabase: `${prefix}missing_${randomBytes(4).toString('hex')}`,
    scratchName: (tricky) => unique(tricky ? 'q`x y' : 'scratch'),
    async createDatabase(name = unique('db')) {
      await admin.query(`CREATE DATABASE ${q(name)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      created.push(name);
      return name;
    },
    async removeDatabase(name) {
      await admin.query(`DROP DATABASE IF EXISTS ${q(name)}`);
    },
    async seed(db: string, data: Dataset) {
      for (const table of data.tables) {
        const [id, a, b] = table.columns as [string, string, string];
        const bType = table.name === 'people' ? 'TEXT' : 'INT';
        await admin.query(
          `CREATE TABLE ${q(db)}.${table.name} (${id} INT PRIMARY KEY, ${a} TEXT NOT NULL, ${b} ${bType} NULL) ENGINE=InnoDB`,
        );
        for (let i = 0; i < table.rows.length; i += 5_000) {
          await admin.query(`INSERT INTO ${q(db)}.${table.name} VALUES ?`, [table.rows.slice(i, i + 5_000)]);
        }
      }
      if (!data.tables.some((table) => table.name === 'items')) return;
      // A routine and a trigger, which --routines/--triggers must carry. Created by the driver's
      // user in its own database: the dump keeps DEFINER, and restoring an object defined by
      // another account needs SUPER/SET USER (a documented limit of mysqldump restores).
      const owner = await mysql.createConnection({ host, port, user, password: secret, database: db });
      try {
        await owner.query(
          'CREATE TRIGGER items_guard BEFORE INSERT ON items FOR EACH ROW SET NEW.qty = COALESCE(NEW.qty, 0)',
        );
        await owner.query('CREATE FUNCTION answer() RETURNS INT DETERMINISTIC RETURN 42');
      } finally {
        await owner.end();
      }
    },
    async rows(db, table) {
      const [rows] = await admin.query({ sql: `SELECT * FROM ${q(db)}.${table} ORDER BY id`, rowsAsArray: true });
      return rows as unknown[][];
    },
    stockRestore: stockTool,
    async badCredentials() {
      return mysqlType.create({ ...config, password: `${secret}-wrong` }, deps);
    },
    unreachable: () => new MysqlDriver(parseMysqlConfig({ ...config, port: unreachablePort }), deps),
    argv: (db) => {
      const c = parseMysqlConfig(config);
      return [mysqldumpArgs(c, db), mysqlRestoreArgs(c, db)];
    },
    async cleanup() {
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS ${q(name)}`);
      await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
      await admin.end();
    },
  };
});

test('mysql: no password in argv or environment; an option file, named first, holds it', () => {
  const config = parseMysqlConfig({ host: 'db.example', user: 'backup', password: 'hunter2-secret' });
  const dump = mysqldumpArgs(config, 'app');
  assert.equal(dump[0], '--no-defaults', 'no option file adds options');
  for (const flag of ['--single-transaction', '--routines', '--triggers', '--events'])
    assert.ok(dump.includes(flag), flag);
  assert.equal(dump.at(-1), 'app');
  assert.ok(!dump.includes('--databases'), 'no CREATE DATABASE/USE: restores into any database');
  assert.ok(mysqlRestoreArgs(config, 'app').includes('--database=app'));
  // With a password: its file is the first argument (the clients take it nowhere else), and the only one read.
  const file = '/data/tmp/secret-abc/client.cnf';
  for (const argv of [mysqldumpArgs(config, 'app', file), mysqlRestoreArgs(config, 'app', file)]) {
    assert.equal(argv[0], `--defaults-file=${file}`);
    assert.ok(!argv.includes('--no-defaults'));
    assert.ok(!argv.join(' ').includes('hunter2'));
  }
  assert.deepEqual(
    mysqlEnv({ PATH: '/bin', MYSQL_HOST: 'elsewhere', MYSQL_PWD: 'inherited', BACKPLANE_SECRET_KEY: 'k', LANG: 'C' }),
    { PATH: '/bin', LANG: 'C' },
  );
  assert.equal(mysqlOptionFile('plain'), '[client]\npassword="plain"\n');
  assert.equal(mysqlOptionFile(' a#b"c\\d\'e\n '), '[client]\npassword=" a#b\\"c\\\\d\'e\\n "\n');
  assert.throws(
    () => mysqlOptionFile('nul\0byte'),
    (err) => providerErrorKind(err) === 'permanent',
  );
  assert.throws(
    () => mysqldumpArgs(config, '--all-databases'),
    (err) => err instanceof ProviderError && err.kind === 'permanent',
  );
});

test('mysql: a password with quotes, #, backslashes and outer blanks logs in from the option file; the file is gone after', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const parsed = new URL(url);
  const admin = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  const user = unique('pw').slice(0, 32);
  const database = unique('pwdb');
  const password = ` p#a"s's\\w\tö:rd;${randomBytes(4).toString('hex')} `;
  t.after(async () => {
    await admin.query(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
    await admin.end();
  });
  await admin.query('CREATE USER ?@? IDENTIFIED BY ?', [user, '%', password]);
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4`);
  await admin.query(`GRANT ALL PRIVILEGES ON \`${database}\`.* TO ?@?`, [user, '%']);
  await admin.query('GRANT SELECT ON mysql.proc TO ?@?', [user, '%']);
  await admin.query(`CREATE TABLE \`${database}\`.t (id int PRIMARY KEY) ENGINE=InnoDB`);
  await admin.query(`INSERT INTO \`${database}\`.t VALUES (1), (2), (3)`);
  const scratch = await mkdtemp(join(tmpdir(), 'bp-mycnf-'));
  t.after(() => rm(scratch, { recursive: true, force: true }));
  const config = { host: parsed.hostname, port: Number(parsed.port || 3306), user, password, connectTimeoutSeconds: 5 };
  const driver = await mysqlType.create(config, { ...deps, tempDir: scratch });

  const dump = await driver.dump({ databases: [database] });
  const chunks: Buffer[] = [];
  for await (const chunk of dump.stream) chunks.push(chunk as Buffer);
  await dump.done;
  assert.match(Buffer.concat(chunks).toString(), /INSERT INTO `t` VALUES/);
  await admin.query(`DROP TABLE \`${database}\`.t`);
  await driver.restore(Readable.from(chunks), { database });
  const [rows] = await admin.query(`SELECT COUNT(*) AS n FROM \`${database}\`.t`);
  assert.equal(Number((rows as Array<{ n: number }>)[0]!.n), 3, 'mysql restored with the same file');
  assert.deepEqual(await readdir(scratch), [], 'both option files were removed');

  const wrong = await mysqlType.create({ ...config, password: `${password}x` }, { ...deps, tempDir: scratch });
  const refused = await wrong.dump({ databases: [database] });
  refused.stream.on('error', () => undefined).resume();
  await assert.rejects(
    refused.done,
    (err) => providerErrorKind(err) === 'auth',
    'the server checked the file’s password',
  );
  assert.deepEqual(await readdir(scratch), [], 'removed after a failure too');
});

test('mysql: stderr maps onto kinds', () => {
  assert.equal(
    classifyMysqlStderr(
      "mysqldump: Got error: 1045: \"Access denied for user 'x'@'y' (using password: YES)\" when trying to connect",
    ),
    'auth',
  );
  assert.equal(
    classifyMysqlStderr('mysqldump: Got error: 1049: "Unknown database \'nope\'" when selecting the database'),
    'not_found',
  );
  assert.equal(
    classifyMysqlStderr("mysqldump: Got error: 2002: \"Can't connect to server on '127.0.0.1' (115)\""),
    'transient',
  );
  assert.equal(classifyMysqlStderr('ERROR 1064 (42000) at line 1: You have an error in your SQL syntax'), 'permanent');
  assert.deepEqual(mysqlType.secretFields, ['password']);
});

test('mysql: discover marks the system schemas', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const u = new URL(url);
  const instance = await mysqlType.create(
    { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) },
    deps,
  );
  const found = await instance.discover();
  for (const name of ['information_schema', 'mysql', 'performance_schema'])
    assert.equal(found.find((d) => d.name === name)?.system, true, name);
  await assert.rejects(instance.dump({ databases: [] }), (err) => providerErrorKind(err) === 'permanent');
  assert.ok(isPlugin(dbMysqlPlugin));
  assert.equal(dbMysqlPlugin.name, 'db-mysql');
});

test('mysql: identifiers are quoted; checkDump wants the header and the last-line trailer', () => {
  assert.equal(quoteIdent('a`b'), '`a``b`');
  assert.equal(quoteIdent('x`; DROP DATABASE y; --'), '`x``; DROP DATABASE y; --`');
  const mariadb = Buffer.from(
    '/*M!999999\\- enable the sandbox mode */ \n-- MariaDB dump 10.19  Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)\n--\n',
  );
  const mysql8 = Buffer.from(
    '-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n-- Host: db    Database: app\n',
  );
  const end = '/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;\n\n';
  for (const head of [mariadb, mysql8]) {
    assert.equal(checkMysqlDump(head, Buffer.from(`${end}-- Dump completed on 2026-01-02 03:04:05\n`)), undefined);
    assert.equal(checkMysqlDump(head, Buffer.from(`${end}-- Dump completed\n`)), undefined, '--skip-dump-date');
    // Before 10 a.m. mysqldump pads the hour with a space: `2026-11-22  0:03:12`.
    assert.equal(
      checkMysqlDump(head, Buffer.from(`${end}-- Dump completed on 2026-11-22  0:03:12\n`)),
      undefined,
      'single-digit hour',
    );
    assert.match(checkMysqlDump(head, Buffer.from(`INSERT INTO t VALUES (1),(2);\n`)) ?? '', /no completion trailer/);
    assert.match(
      checkMysqlDump(head, Buffer.from(`-- Dump completed\nINSERT INTO t VALUES (1);\n`)) ?? '',
      /goes on after/,
    );
  }
  assert.match(
    checkMysqlDump(Buffer.from('--\n-- PostgreSQL database dump\n'), Buffer.from('-- Dump completed\n')) ?? '',
    /no mysqldump header/,
  );
  assert.equal(mysqlType.atomicRestore, false, 'the mysql client commits statement by statement');
});

test('mysql: tableStats counts base tables only; no replaceDatabase; system schemas are never dropped', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const u = new URL(url);
  const instance = await mysqlType.create(
    { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) },
    deps,
  );
  const db = unique('stats');
  t.after(() => instance.dropDatabase!(db));
  assert.equal(await instance.ensureDatabase!(db), true);
  const admin = await mysql.createConnection({ uri: url, database: db, multipleStatements: true });
  try {
    await admin.query(
      'CREATE TABLE `we``ird name` (id INT); INSERT INTO `we``ird name` VALUES (1), (2); CREATE TABLE plain (id INT); CREATE VIEW v AS SELECT 1 AS one;',
    );
  } finally {
    await admin.end();
  }
  assert.deepEqual(await instance.tableStats!(db), { plain: 0, 'we`ird name': 2 });
  await assert.rejects(instance.tableStats!(unique('missing')), (err) => providerErrorKind(err) === 'not_found');
  assert.equal(instance.replaceDatabase, undefined, 'MySQL has no RENAME DATABASE: core falls back');
  for (const name of ['mysql', 'INFORMATION_SCHEMA', 'performance_schema', 'sys']) {
    await assert.rejects(instance.dropDatabase!(name), (err) => providerErrorKind(err) === 'permanent', name);
  }
  await assert.rejects(instance.ensureDatabase!('-x'), (err) => providerErrorKind(err) === 'permanent');

  // refused credentials: the usual mapping, and the password never in the message
  const secret = `bp-secret-${randomBytes(6).toString('hex')}`;
  const refused = await mysqlType.create(
    { host: u.hostname, port: Number(u.port || 3306), user: unique('nobody').slice(0, 32), password: secret },
    deps,
  );
  for (const op of [
    () => refused.ensureDatabase!(unique('x')),
    () => refused.dropDatabase!(unique('x')),
    () => refused.tableStats!(db),
  ]) {
    await assert.rejects(
      op(),
      (err) =>
        err instanceof ProviderError &&
        err.kind === 'auth' &&
        !err.message.includes(secret) &&
        err.message.startsWith('mysql: '),
    );
  }
});
