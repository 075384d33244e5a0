import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import mysql from 'mysql2/promise';
import { closedPort, runDatabaseContract, type Dataset } from '../contracts/database-contract.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { ProviderError, providerErrorKind, type ProviderDeps } from '../../core/plugin-host/contracts.ts';
import { isPlugin } from '../../core/plugin-host/define-plugin.ts';
import dbMysqlPlugin from '../../plugins/db-mysql/index.ts';
import { MysqlDriver, mysqlType } from '../../plugins/db-mysql/mysql-driver.ts';
import { mysqldumpArgs, mysqlEnv, mysqlRestoreArgs } from '../../plugins/db-mysql/mysql-argv.ts';
import { parseMysqlConfig } from '../../plugins/db-mysql/mysql-config.ts';
import { classifyMysqlStderr } from '../../plugins/db-mysql/mysql-errors.ts';

const deps: ProviderDeps = { tempDir: tmpdir(), log: { info: () => undefined, warn: () => undefined, error: () => undefined } };
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
  const stockTool = (file: string, db: string) => new Promise<void>((resolve, reject) => {
    const child = spawn('mysql', ['--no-defaults', `--host=${host}`, `--port=${port}`, '--user=root', '--protocol=TCP', '--default-character-set=utf8mb4', db], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`mysql exited ${code}: ${stderr}`))));
    createReadStream(file).pipe(child.stdin);
  });
  return {
    instance: await mysqlType.create(config, deps),
    secret,
    spawnsChild: true,
    timeoutMs: 5_000,
    missingDatabase: `${prefix}missing_${randomBytes(4).toString('hex')}`,
    async createDatabase() {
      const name = unique('db');
      await admin.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      created.push(name);
      return name;
    },
    async seed(db: string, data: Dataset) {
      for (const table of data.tables) {
        const [id, a, b] = table.columns as [string, string, string];
        const bType = table.name === 'people' ? 'TEXT' : 'INT';
        await admin.query(`CREATE TABLE \`${db}\`.${table.name} (${id} INT PRIMARY KEY, ${a} TEXT NOT NULL, ${b} ${bType} NULL) ENGINE=InnoDB`);
        for (let i = 0; i < table.rows.length; i += 5_000) {
          await admin.query(`INSERT INTO \`${db}\`.${table.name} VALUES ?`, [table.rows.slice(i, i + 5_000)]);
        }
      }
      // A routine and a trigger, which --routines/--triggers must carry. Created by the driver's
      // user in its own database: the dump keeps DEFINER, and restoring an object defined by
      // another account needs SUPER/SET USER (a documented limit of mysqldump restores).
      const owner = await mysql.createConnection({ host, port, user, password: secret, database: db });
      try {
        await owner.query('CREATE TRIGGER items_guard BEFORE INSERT ON items FOR EACH ROW SET NEW.qty = COALESCE(NEW.qty, 0)');
        await owner.query('CREATE FUNCTION answer() RETURNS INT DETERMINISTIC RETURN 42');
      } finally {
        await owner.end();
      }
    },
    async rows(db, table) {
      const [rows] = await admin.query({ sql: `SELECT * FROM \`${db}\`.${table} ORDER BY id`, rowsAsArray: true });
      return rows as unknown[][];
    },
    stockRestore: stockTool,
    async badCredentials() {
      return mysqlType.create({ ...config, password: `${secret}-wrong` }, deps);
    },
    unreachable: () => new MysqlDriver(parseMysqlConfig({ ...config, port: unreachablePort }), deps),
    argv: (db) => { const c = parseMysqlConfig(config); return [mysqldumpArgs(c, db), mysqlRestoreArgs(c, db)]; },
    async cleanup() {
      for (const name of created) await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.query('DROP USER IF EXISTS ?@?', [user, '%']);
      await admin.end();
    },
  };
});

test('mysql: argv and environment carry the password only in MYSQL_PWD', () => {
  const config = parseMysqlConfig({ host: 'db.example', user: 'backup', password: 'hunter2-secret' });
  const dump = mysqldumpArgs(config, 'app');
  assert.equal(dump[0], '--no-defaults', 'no option file adds options');
  for (const flag of ['--single-transaction', '--routines', '--triggers', '--events']) assert.ok(dump.includes(flag), flag);
  assert.equal(dump.at(-1), 'app');
  assert.ok(!dump.includes('--databases'), 'no CREATE DATABASE/USE: restores into any database');
  assert.ok(mysqlRestoreArgs(config, 'app').includes('--database=app'));
  for (const argv of [dump, mysqlRestoreArgs(config, 'app')]) assert.ok(!argv.join(' ').includes('hunter2'));
  const env = mysqlEnv({ PATH: '/bin', MYSQL_HOST: 'elsewhere' }, config);
  assert.equal(env.MYSQL_PWD, 'hunter2-secret');
  assert.equal(env.MYSQL_HOST, undefined);
  assert.throws(() => mysqldumpArgs(config, '--all-databases'), (err) => err instanceof ProviderError && err.kind === 'permanent');
});

test('mysql: stderr maps onto kinds', () => {
  assert.equal(classifyMysqlStderr("mysqldump: Got error: 1045: \"Access denied for user 'x'@'y' (using password: YES)\" when trying to connect"), 'auth');
  assert.equal(classifyMysqlStderr('mysqldump: Got error: 1049: "Unknown database \'nope\'" when selecting the database'), 'not_found');
  assert.equal(classifyMysqlStderr("mysqldump: Got error: 2002: \"Can't connect to server on '127.0.0.1' (115)\""), 'transient');
  assert.equal(classifyMysqlStderr('ERROR 1064 (42000) at line 1: You have an error in your SQL syntax'), 'permanent');
  assert.deepEqual(mysqlType.secretFields, ['password']);
});

test('mysql: discover marks the system schemas', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const u = new URL(url);
  const instance = await mysqlType.create({ host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) }, deps);
  const found = await instance.discover();
  for (const name of ['information_schema', 'mysql', 'performance_schema']) assert.equal(found.find((d) => d.name === name)?.system, true, name);
  await assert.rejects(instance.dump({ databases: [] }), (err) => providerErrorKind(err) === 'permanent');
  assert.ok(isPlugin(dbMysqlPlugin));
  assert.equal(dbMysqlPlugin.name, 'db-mysql');
});
