import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { access, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { stalledDatabase } from '../helpers/stalled-postgres.ts';
import { stalledMysqlDatabase } from '../helpers/stalled-mysql.ts';
import { watchDescendants, type ProcessSnapshot, type ProcessWatch } from '../helpers/process-tree.ts';
import { agentFor, finished, master, node } from '../helpers/agent-master.ts';
import { createTask, diskTarget } from './helpers.ts';
import { postgresType } from '../../plugins/db-postgres/postgres-driver.ts';
import { mysqlType } from '../../plugins/db-mysql/mysql-driver.ts';

/**
 * A database password reaches only the program that connects with it, as a file (a pgpass file,
 * a MySQL option file) in a private folder, and no other process: during real backups against
 * real servers, every descendant of this test process (the master's children, an agent and its
 * children) is looked at in /proc while the run is held on a table lock, so pg_dump/mysqldump and
 * zstd are certainly alive and seen. The password must be in no process's environment or argv.
 */

/** The variables a tool's environment may hold (packages/plugin-api/src/tool-env.ts), and its driver's own. */
const TOOL_VARIABLES = /^(PATH|HOME|TMPDIR|USER|LOGNAME|LANG|LANGUAGE|TZ|LC_[A-Z_]+)$/;
const DRIVER_VARIABLES: Record<string, RegExp> = {
  // PGSYSCONFDIR: set by Debian's pg_wrapper (/usr/bin/pg_dump) before it runs the versioned binary.
  pg_dump: /^(PGPASSFILE|PGCONNECT_TIMEOUT|PGCLIENTENCODING|PGSYSCONFDIR)$/,
  psql: /^(PGPASSFILE|PGCONNECT_TIMEOUT|PGCLIENTENCODING|PGSYSCONFDIR)$/,
  mysqldump: /^$/,
  mysql: /^$/,
  zstd: /^$/,
};

const envOf = (s: ProcessSnapshot): Map<string, string> =>
  new Map(s.environ.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));

/** The password in no environment and no argv of any process seen; the tools' environments hold nothing else. */
function assertNowhere(seen: ProcessSnapshot[], password: string): void {
  for (const s of seen) {
    assert.ok(
      !s.environ.some((v) => v.includes(password)),
      `the password is in the environment of ${s.comm} (${s.pid})`,
    );
    assert.ok(!s.cmdline.some((a) => a.includes(password)), `the password is in the argv of ${s.comm} (${s.pid})`);
    const own = DRIVER_VARIABLES[s.comm];
    if (!own) continue; // not a tool (this test's own children, the agent), or a tool still between fork and exec
    for (const name of envOf(s).keys())
      assert.ok(TOOL_VARIABLES.test(name) || own.test(name), `${s.comm} was given ${name}`);
  }
}

/** Waits for the tools, then checks the password file the connecting tool names while it runs. */
async function credentialFile(
  watch: ProcessWatch,
  tool: string,
  password: string,
  others: string[] = ['zstd'],
): Promise<string> {
  await watch.waitFor([tool, ...others], 30_000);
  const child = watch.seen.find((s) => s.comm === tool)!;
  const file = tool.startsWith('p')
    ? envOf(child).get('PGPASSFILE')
    : /^--defaults-file=(.+)$/.exec(child.cmdline[1] ?? '')?.[1];
  assert.ok(file, `${tool} is told where its password is: ${child.cmdline.join(' ')}`);
  assert.equal((await stat(file)).mode & 0o777, 0o600, 'the file is the owner’s alone');
  assert.equal((await stat(dirname(file))).mode & 0o777, 0o700, 'in a folder of its own, the owner’s alone');
  assert.ok((await readFile(file, 'utf8')).includes(password));
  return file;
}

/** The password's folder is gone, and nothing else of it is left in the scratch folder. */
async function assertRemoved(file: string, scratch: string): Promise<void> {
  await assert.rejects(access(dirname(file)), { code: 'ENOENT' });
  const left = await readdir(scratch).catch(() => []);
  assert.deepEqual(
    left.filter((name) => name.startsWith('secret-')),
    [],
  );
}

async function startRun(t: TestContext, app: Parameters<typeof call>[0], token: string, taskId: number) {
  const watch = watchDescendants();
  t.after(() => watch.stop());
  const res = await call(app, 'POST', `/api/backup/tasks/${taskId}/run`, { token });
  assert.equal(res.status, 200, res.body);
  return { watch, recordPath: `/api/backup/records/${res.json.data.recordId}` };
}

const secret = (what: string) => `bp-${what}-${randomBytes(12).toString('hex')}`;

test('postgresql backup on the master: the password reaches pg_dump only as a pgpass file; zstd and every other child never see it', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const db = await stalledDatabase(t, url);
  // The test server trusts 127.0.0.1, so the password is not checked there; it is passed all the
  // same (test/plugins/db-postgres.test.ts proves pg_dump sends what the file holds).
  const password = secret('pg');
  const { app, dataDir } = await build(t);
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  const task = await createTask(app, token, {
    name: 'PG secrets',
    type: 'postgresql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbPassword: password,
    dbName: db.name,
    storageTargetIds: [target.id],
  });
  const { watch, recordPath } = await startRun(t, app, token, task.id);
  const file = await credentialFile(watch, 'pg_dump', password);
  assert.ok(file.startsWith(join(dataDir, 'tmp')), `the file is in the master's scratch folder: ${file}`);
  await db.release();
  await app.diContainer.cradle.backupRuns.idle();
  const record = (await call(app, 'GET', recordPath, { token })).json.data;
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(record.compression, 'zstd');
  assertNowhere(await watch.stop(), password);
  await assertRemoved(file, join(dataDir, 'tmp'));
});

test('mysql backup on the master (real MariaDB user and password): the password reaches mysqldump only as an option file', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const password = secret('my');
  const db = await stalledMysqlDatabase(t, url, password);
  const { app, dataDir } = await build(t);
  const token = await setupAdmin(app);
  const target = await diskTarget(t, app, token);
  const task = await createTask(app, token, {
    name: 'MariaDB secrets',
    type: 'mysql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbPassword: password,
    dbName: db.name,
    storageTargetIds: [target.id],
  });
  const { watch, recordPath } = await startRun(t, app, token, task.id);
  const file = await credentialFile(watch, 'mysqldump', password);
  assert.ok(file.startsWith(join(dataDir, 'tmp')), `the file is in the master's scratch folder: ${file}`);
  await db.release();
  await app.diContainer.cradle.backupRuns.idle();
  const record = (await call(app, 'GET', recordPath, { token })).json.data;
  // The server checks this password: success proves mysqldump read it from the file.
  assert.equal(record.status, 'success', record.errorMessage);
  assertNowhere(await watch.stop(), password);
  await assertRemoved(file, join(dataDir, 'tmp'));
});

test('postgresql backup on an agent: the same kernel code, the password in no process of the agent either', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const db = await stalledDatabase(t, url);
  const password = secret('pg-agent');
  const m = await master(t);
  const n = await node(m, 'secrets-node');
  const dir = await tempDir(t, 'backplane-agent-');
  const agent = await agentFor(t, m, n, { dir });
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'PG secrets on a node',
    type: 'postgresql',
    dbHost: db.host,
    dbPort: db.port,
    dbUser: db.user,
    dbPassword: password,
    dbName: db.name,
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const { watch, recordPath } = await startRun(t, m.app, m.token, task.id);
  const file = await credentialFile(watch, 'pg_dump', password);
  assert.ok(file.startsWith(join(dir, 'tmp')), `the file is in the agent's temp folder: ${file}`);
  const pgDump = watch.seen.find((s) => s.comm === 'pg_dump')!;
  assert.notEqual(pgDump.pid, agent.child.pid);
  await db.release();
  const record = await finished(m, recordPath, agent);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(record.nodeId, n.id);
  const seen = await watch.stop();
  assert.ok(
    seen.some((s) => s.pid === agent.child.pid),
    'the agent itself was looked at',
  );
  assertNowhere(seen, password);
  await assertRemoved(file, join(dir, 'tmp', 'spool'));
});

test('restores: psql and mysql get the password only as a file, removed once they exited', async (t) => {
  const pgUrl = await requireOrSkip(t, 'postgres');
  const myUrl = pgUrl && (await requireOrSkip(t, 'mysql'));
  if (!pgUrl || !myUrl) return;
  const password = secret('restore');
  const scratch = await tempDir(t);
  const deps = { tempDir: scratch, log: { info: () => undefined, warn: () => undefined, error: () => undefined } };
  const pgDb = await stalledDatabase(t, pgUrl); // only its name, host and user: the restore goes into a new table
  const myDb = await stalledMysqlDatabase(t, myUrl, password);
  const drivers = [
    {
      tool: 'psql',
      driver: await postgresType.create(
        { host: pgDb.host, port: pgDb.port, user: pgDb.user, password, database: pgDb.name },
        deps,
      ),
      database: pgDb.name,
    },
    {
      tool: 'mysql',
      driver: await mysqlType.create({ host: myDb.host, port: myDb.port, user: myDb.user, password }, deps),
      database: myDb.name,
    },
  ];
  for (const { tool, driver, database } of drivers) {
    const watch = watchDescendants();
    t.after(() => watch.stop());
    // The client waits on its input until the test ends it, so it is certainly seen running.
    const input = new PassThrough();
    const restored = driver.restore(input, { database });
    let file: string;
    try {
      file = await credentialFile(watch, tool, password, []);
    } finally {
      input.end('CREATE TABLE restored_here (id int);\n'); // a failed check must not leave the client waiting
    }
    await restored;
    assertNowhere(await watch.stop(), password);
    await assertRemoved(file, scratch);
  }
});
