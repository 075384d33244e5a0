import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { call, tempDir, userWithRole } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { waitFor } from '../helpers/agent-process.ts';
import { agentFor, master, finished, node, runToEnd } from '../helpers/agent-master.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';
import { startWebdavServer, startSftpServer } from '../helpers/rclone-servers.ts';

const run = promisify(execFile);
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

test('a file backup runs on an agent through the master relay: same record, log, manifest and checksum; a restore on the node rebuilds them', async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-1');
  const agent = await agentFor(t, m, n);
  const src = await tempDir(t);
  await mkdir(join(src, 'docs'));
  const big = randomBytes(3 * 1024 * 1024);
  await writeFile(join(src, 'docs', 'a.txt'), 'hello from the node\n');
  await writeFile(join(src, 'blob.bin'), big);
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'Node Files',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const events: string[] = [];
  t.after(m.app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const record = await runToEnd(m, task.id, agent);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(record.nodeId, n.id);
  assert.ok(events.includes('backup_success'), `events: ${events.join(', ')}`);
  const stored = await readFile(join(target.dir, record.storagePath));
  assert.equal(stored.length, record.fileSize);
  assert.equal(sha256(stored), record.checksum);
  assert.match(record.fileName, /\.tar\.zst\.age$/);

  const log = await call(m.app, 'GET', `/api/backup/records/${record.id}`, { token: m.token });
  assert.match(JSON.stringify(log.json.data), /started on node \\"edge-1\\"/);
  const contents = await call(m.app, 'GET', `/api/backup/records/${record.id}/contents`, { token: m.token });
  assert.equal(contents.status, 200, contents.body);
  assert.ok(JSON.stringify(contents.json.data).includes('blob.bin'));

  const into = await tempDir(t);
  const restore = await call(m.app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token: m.token,
    body: { targetPath: into },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await finished(m, `/api/restore/records/${restore.json.data.id}`, agent);
  assert.equal(done.status, 'success', done.errorMessage);
  assert.ok(events.includes('restore_success'), `events: ${events.join(', ')}`);
  const restored = await readdir(into, { recursive: true });
  const blobPath = restored.find((p) => p.endsWith('blob.bin'));
  assert.ok(blobPath, `restored: ${restored.join(', ')}`);
  assert.equal(sha256(await readFile(join(into, blobPath))), sha256(big));
});

test('node filesystem listing is answered by the agent; viewers are refused, no credential is 401, an offline node is 409', async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-fs');
  const dir = await tempDir(t);
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'f.txt'), 'x');
  const offline = await node(m, 'edge-never');
  assert.equal(
    (await call(m.app, 'GET', `/api/nodes/${offline.id}/fs/list`, { token: m.token, query: { path: dir } })).json.code,
    'NODE_OFFLINE',
  );
  await agentFor(t, m, n);
  const viewer = await userWithRole(m.app, m.token, 'viewer');
  assert.equal((await call(m.app, 'GET', `/api/nodes/${n.id}/fs/list`, { query: { path: dir } })).status, 401);
  assert.equal(
    (await call(m.app, 'GET', `/api/nodes/${n.id}/fs/list`, { token: viewer.token, query: { path: dir } })).status,
    403,
  );
  const res = await call(m.app, 'GET', `/api/nodes/${n.id}/fs/list`, { token: m.token, query: { path: dir } });
  assert.equal(res.status, 200, res.body);
  assert.deepEqual(
    res.json.data.map((e: any) => [e.name, e.isDir]),
    [
      ['sub', true],
      ['f.txt', false],
    ],
    "BackupX's plain array of entries",
  );
  assert.equal(res.headers['x-total-count'], '2');
  const missing = await call(m.app, 'GET', `/api/nodes/${n.id}/fs/list`, {
    token: m.token,
    query: { path: join(dir, 'nope') },
  });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'NODE_FS_FAILED');
});

test('a PostgreSQL database is backed up by an agent writing directly to its target, and restored by the agent into a new database', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const source = `bp_agent_src_${process.pid}`;
  const copy = `bp_agent_copy_${process.pid}`;
  for (const db of [source, copy]) await admin.query(`drop database if exists ${db}`);
  await admin.query(`create database ${source}`);
  t.after(async () => {
    for (const db of [source, copy]) await admin.query(`drop database if exists ${db} with (force)`);
    await admin.end();
  });
  const u = new URL(url);
  const src = new pg.Client({ connectionString: `${u.protocol}//${u.username}@${u.host}/${source}` });
  await src.connect();
  await src.query(
    'create table items (id int primary key, name text); insert into items select g, md5(g::text) from generate_series(1, 5000) g',
  );
  await src.end();

  // The journey of a new user: a node, a one-time installer run on this machine, the agent it set up.
  const m = await master(t);
  const created = await node(m, 'db-node');
  const installer = await call(m.app, 'POST', `/api/nodes/${created.id}/install-tokens`, { token: m.token });
  assert.equal(installer.status, 200, installer.body);
  const script = await (await fetch(`${m.url}/install/${installer.json.data.token}`)).text();
  const root = await tempDir(t);
  await writeFile(join(root, 'install.sh'), script);
  await run('sh', [join(root, 'install.sh')], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BACKPLANE_INSTALL_ROOT: root, BACKPLANE_INSTALL_NO_START: '1' },
  });
  const n = { id: created.id };
  const agent = await agentFor(t, m, n, { tokenFile: join(root, 'etc/backplane/agent.token') });
  const target = await diskTarget(t, m.app, m.token);
  assert.equal(
    (
      await call(m.app, 'PUT', `/api/storage-targets/${target.id}`, {
        token: m.token,
        body: { agentDirectUpload: true },
      })
    ).status,
    200,
  );
  const task = await createTask(m.app, m.token, {
    name: 'Node PG',
    type: 'postgresql',
    dbHost: u.hostname,
    dbPort: Number(u.port || 5432),
    dbUser: decodeURIComponent(u.username),
    dbName: source,
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const record = await runToEnd(m, task.id, agent);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.match(record.fileName, /\.sql\.zst\.age$/);
  assert.equal(sha256(await readFile(join(target.dir, record.storagePath))), record.checksum);

  const restore = await call(m.app, 'POST', `/api/backup/records/${record.id}/restore`, {
    token: m.token,
    body: { targetDatabase: copy },
  });
  assert.equal(restore.status, 200, restore.body);
  const done = await finished(m, `/api/restore/records/${restore.json.data.id}`, agent);
  assert.equal(done.status, 'success', done.errorMessage);
  const check = new pg.Client({ connectionString: `${u.protocol}//${u.username}@${u.host}/${copy}` });
  await check.connect();
  const rows = await check.query('select count(*)::int as n from items');
  await check.end();
  assert.equal(rows.rows[0].n, 5000);
});

test('an agent SIGKILLed mid-run never leaves its record running: a restarted agent abandons it (failed, nothing kept); the next run succeeds', async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-kill');
  let agent = await agentFor(t, m, n);
  const src = await tempDir(t);
  // Incompressible and large enough that the run is still going when the kill lands.
  for (let i = 0; i < 8; i++) await writeFile(join(src, `part-${i}.bin`), randomBytes(16 * 1024 * 1024));
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'Killed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: n.id,
    compression: 'none',
  });
  const res = await call(m.app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: m.token });
  assert.equal(res.status, 200, res.body);
  const recordPath = `/api/backup/records/${res.json.data.recordId}`;
  await waitFor('the run to start on the agent', async () =>
    (await call(m.app, 'GET', recordPath, { token: m.token })).json.data.state === 'running' ? true : undefined,
  );
  await agent.kill();
  agent = await agentFor(t, m, n);
  const record = await finished(m, recordPath, agent);
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /restarted/);
  const leftovers = (await readdir(target.dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  assert.deepEqual(
    leftovers.map((e) => e.name),
    [],
  );

  const again = await runToEnd(m, task.id, agent);
  assert.equal(again.status, 'success', again.errorMessage);
});

test('an agent that goes silent past its lease: the started run fails with the reason instead of staying running', async (t) => {
  const m = await master(t, { commandLeaseSeconds: 2 });
  const n = await node(m, 'edge-silent');
  const agent = await agentFor(t, m, n);
  const src = await tempDir(t);
  for (let i = 0; i < 8; i++) await writeFile(join(src, `part-${i}.bin`), randomBytes(16 * 1024 * 1024));
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'Silent',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: n.id,
    compression: 'none',
  });
  const res = await call(m.app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: m.token });
  const recordPath = `/api/backup/records/${res.json.data.recordId}`;
  await waitFor('the run to start on the agent', async () =>
    (await call(m.app, 'GET', recordPath, { token: m.token })).json.data.state === 'running' ? true : undefined,
  );
  await agent.kill();
  const record = await finished(m, recordPath);
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /lease lapsed/);
});

test("a containerised agent enrolls itself from the compose file's one-time code and keeps the token it got", async (t) => {
  const m = await master(t);
  const created = await node(m, 'edge-compose');
  const installer = await call(m.app, 'POST', `/api/nodes/${created.id}/install-tokens`, { token: m.token });
  const compose = await (await fetch(`${m.url}/install/${installer.json.data.token}/compose.yml`)).text();
  const code = /BACKPLANE_AGENT_ENROLL_CODE: "?'?(bpe_[0-9a-f]+)/.exec(compose)?.[1];
  assert.ok(code, compose);
  const dir = await tempDir(t);
  const tokenFile = join(dir, 'agent.token');
  const agent = await agentFor(t, m, { id: created.id }, { tokenFile, env: { BACKPLANE_AGENT_ENROLL_CODE: code } });
  assert.match((await readFile(tokenFile, 'utf8')).trim(), /^bpn_[0-9a-f]{64}$/);
  assert.ok(!agent.logs.join('\n').includes('bpn_'), 'the token is never logged');
});

test('a graceful stop lets running work finish within the grace period, and reports it failed once the grace is over', async (t) => {
  const m = await master(t);
  const src = await tempDir(t);
  for (let i = 0; i < 4; i++) await writeFile(join(src, `part-${i}.bin`), randomBytes(16 * 1024 * 1024));
  const target = await diskTarget(t, m.app, m.token);
  for (const [grace, expected] of [
    ['60', 'success'],
    ['0', 'failed'],
  ] as const) {
    const n = await node(m, `edge-stop-${grace}`);
    const agent = await agentFor(t, m, n, { args: ['--stop-grace-seconds', grace] });
    const task = await createTask(m.app, m.token, {
      name: `Stop ${grace}`,
      type: 'file',
      sourcePaths: [src],
      storageTargetIds: [target.id],
      nodeId: n.id,
      compression: 'none',
    });
    const res = await call(m.app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: m.token });
    const recordPath = `/api/backup/records/${res.json.data.recordId}`;
    await waitFor('the run to start on the agent', async () =>
      (await call(m.app, 'GET', recordPath, { token: m.token })).json.data.state === 'running' ? true : undefined,
    );
    assert.equal(await agent.stop(), 0, agent.logs.slice(-40).join('\n'));
    const record = (await call(m.app, 'GET', recordPath, { token: m.token })).json.data;
    assert.equal(record.status, expected, record.errorMessage);
    if (expected === 'failed') assert.match(record.errorMessage, /agent was stopped/);
  }
});

test('database discovery from a node: the agent connects and lists what it sees; the password is sealed at rest and gone once answered', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const m = await master(t);
  const n = await node(m, 'edge-discover');
  await agentFor(t, m, n);
  const u = new URL(url);
  const body = {
    type: 'postgresql',
    host: u.hostname,
    port: Number(u.port || 5432),
    user: decodeURIComponent(u.username),
    password: 'not-needed-with-trust',
    nodeId: n.id,
  };
  const res = await call(m.app, 'POST', '/api/database/discover', { token: m.token, body });
  assert.equal(res.status, 200, res.body);
  assert.ok(res.json.data.databases.includes(u.pathname.slice(1)), res.body);
  const rows = await m.app.diContainer.cradle.orm.em.fork().find(AgentCommandEntity, { type: 'discover_db' });
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.status, 'succeeded');
  assert.equal(rows[0]!.secrets, '', 'the sealed password is dropped once the command is settled');
  assert.ok(!rows[0]!.payload.includes('not-needed-with-trust'));

  const offline = await node(m, 'edge-discover-off');
  const refused = await call(m.app, 'POST', '/api/database/discover', {
    token: m.token,
    body: { ...body, nodeId: offline.id },
  });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.code, 'NODE_OFFLINE');
  const failing = await call(m.app, 'POST', '/api/database/discover', {
    token: m.token,
    body: { ...body, port: 1, nodeId: n.id },
  });
  assert.equal(failing.status, 400);
  assert.equal(failing.json.code, 'DATABASE_DISCOVER_FAILED');
});

test('rclone from an agent: WebDAV relayed through the master, SFTP written directly by the agent; both hold the checksummed artifact', async (t) => {
  const webdav = await startWebdavServer();
  t.after(() => webdav.stop());
  const sftp = await startSftpServer();
  t.after(() => sftp.stop());
  const m = await master(t);
  const n = await node(m, 'edge-rclone');
  const agent = await agentFor(t, m, n);
  const mk = async (body: Record<string, unknown>) => {
    const res = await call(m.app, 'POST', '/api/storage-targets', { token: m.token, body });
    assert.equal(res.status, 200, res.body);
    return res.json.data.id as number;
  };
  const relayed = await mk({
    name: 'dav',
    type: 'webdav',
    config: { url: webdav.url, vendor: 'other', user: webdav.user, pass: webdav.pass, path: 'backups' },
  });
  const direct = await mk({
    name: 'sftp',
    type: 'sftp',
    agentDirectUpload: true,
    config: { host: sftp.host, port: sftp.port, user: sftp.user, pass: sftp.pass, path: 'backups' },
  });
  const src = await tempDir(t);
  await writeFile(join(src, 'data.bin'), randomBytes(2 * 1024 * 1024));
  const task = await createTask(m.app, m.token, {
    name: 'Rclone Pair',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [relayed, direct],
    nodeId: n.id,
  });
  const record = await runToEnd(m, task.id, agent);
  assert.equal(record.status, 'success', record.errorMessage);
  for (const dir of [webdav.dir, sftp.dir]) {
    const stored = await readFile(join(dir, 'backups', record.storagePath));
    assert.equal(sha256(stored), record.checksum, dir);
  }
  // BackupX's storageTransferMode: the record's primary copy travelled through the master; each copy says how it went.
  assert.equal(record.storageTransferMode, 'master_relay');
  assert.deepEqual(
    record.storageUploadResults.map((c: any) => [c.storageTargetId, c.transferMode]),
    [
      [relayed, 'master_relay'],
      [direct, 'direct'],
    ],
  );
});

test('several agents at once: a label pool spreads concurrent runs over its nodes', async (t) => {
  const m = await master(t);
  const a = await node(m, 'pool-1', ['files']);
  const b = await node(m, 'pool-2', ['files']);
  const [agentA, agentB] = await Promise.all([agentFor(t, m, a), agentFor(t, m, b)]);
  const target = await diskTarget(t, m.app, m.token);
  const src = await tempDir(t);
  await writeFile(join(src, 'big.bin'), randomBytes(32 * 1024 * 1024));
  const tasks = await Promise.all(
    ['one', 'two'].map((name) =>
      createTask(m.app, m.token, {
        name: `Pool ${name}`,
        type: 'file',
        sourcePaths: [src],
        storageTargetIds: [target.id],
        nodeLabel: 'files',
        compression: 'none',
      }),
    ),
  );
  const started = await Promise.all(
    tasks.map((task) => call(m.app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: m.token })),
  );
  const records = await Promise.all(
    started.map((r) => finished(m, `/api/backup/records/${r.json.data.recordId}`, agentA)),
  );
  assert.deepEqual(
    records.map((r) => r.status),
    ['success', 'success'],
    records.map((r) => r.errorMessage).join('; ') + agentB.logs.slice(-5).join('\n'),
  );
  assert.deepEqual(records.map((r) => r.nodeId).sort(), [a.id, b.id].sort());
});

test('an agent run is followed like a master run: retention across copies, automatic replication, metrics', async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-first-class');
  const agent = await agentFor(t, m, n);
  const primary = await diskTarget(t, m.app, m.token, 'primary');
  const replica = await diskTarget(t, m.app, m.token, 'replica');
  const src = await tempDir(t);
  await writeFile(join(src, 'f.txt'), 'first-class');
  const task = await createTask(m.app, m.token, {
    name: 'First Class',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [primary.id],
    replicationTargetIds: [replica.id],
    maxBackups: 1,
    retentionDays: 0,
    nodeId: n.id,
  });
  const first = await runToEnd(m, task.id, agent);
  assert.equal(first.status, 'success', first.errorMessage);
  await waitFor(
    'the replica of the first run',
    async () => await readFile(join(replica.dir, first.storagePath)).catch(() => undefined),
  );
  const second = await runToEnd(m, task.id, agent);
  assert.equal(second.status, 'success', second.errorMessage);
  await waitFor('retention to remove the first record', async () =>
    (await call(m.app, 'GET', `/api/backup/records/${first.id}`, { token: m.token })).status === 404 ? true : undefined,
  );
  await assert.rejects(readFile(join(primary.dir, first.storagePath)), { code: 'ENOENT' });
  await assert.rejects(readFile(join(replica.dir, first.storagePath)), { code: 'ENOENT' });
  const metrics = await (await fetch(`${m.url}/metrics`)).text();
  assert.match(metrics, /backplane_backup_runs_total\{type="file",status="success",trigger="manual"\} 2/);
});

test("an agent file run acts like the master's: all sources missing fails, nothing kept, no backup_success; some missing succeeds with warnings", async (t) => {
  const m = await master(t);
  const n = await node(m, 'edge-missing');
  const agent = await agentFor(t, m, n);
  const src = await tempDir(t);
  await writeFile(join(src, 'here.txt'), 'present');
  const target = await diskTarget(t, m.app, m.token);
  const events: string[] = [];
  t.after(m.app.diContainer.cradle.events.subscribe((e) => events.push(e.type)));

  const gone = await createTask(m.app, m.token, {
    name: 'Gone',
    type: 'file',
    sourcePaths: [join(src, 'nope')],
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const failed = await runToEnd(m, gone.id, agent);
  assert.equal(failed.status, 'failed');
  assert.match(failed.errorMessage, /nothing to back up/);
  assert.ok(!events.includes('backup_success'), `events: ${events.join(', ')}`);
  assert.deepEqual(
    (await readdir(target.dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()),
    [],
  );

  const some = await createTask(m.app, m.token, {
    name: 'Some',
    type: 'file',
    sourcePaths: [join(src, 'here.txt'), join(src, 'nope')],
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const ok = await runToEnd(m, some.id, agent);
  assert.equal(ok.status, 'success', ok.errorMessage);
  assert.match(ok.errorMessage, /^1 warning: skipped .*nope/);
});

test('an agent backs up a task of two PostgreSQL databases into one archive of two dumps; the master verifies it deep, the agent restores both', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
  const [a, b] = [`bp_agent_ma_${suffix}`, `bp_agent_mb_${suffix}`];
  t.after(async () => {
    for (const db of [a, b]) await admin.query(`drop database if exists "${db}" with (force)`);
    await admin.end();
  });
  const u = new URL(url);
  const withDb = async (db: string, sql: string) => {
    const c = new pg.Client({ connectionString: `${u.protocol}//${u.username}@${u.host}/${db}` });
    await c.connect();
    try {
      return (await c.query(sql)) as any;
    } finally {
      await c.end();
    }
  };
  for (const [db, rows] of [
    [a, 300],
    [b, 70],
  ] as const) {
    await admin.query(`create database "${db}"`);
    await withDb(
      db,
      `create table items (id int primary key, name text); insert into items select g, md5(g::text) from generate_series(1, ${rows}) g`,
    );
  }

  const m = await master(t);
  const n = await node(m, 'db-multi');
  const agent = await agentFor(t, m, n);
  const target = await diskTarget(t, m.app, m.token);
  const task = await createTask(m.app, m.token, {
    name: 'Node PG multi',
    type: 'postgresql',
    dbHost: u.hostname,
    dbPort: Number(u.port || 5432),
    dbUser: decodeURIComponent(u.username),
    dbName: `${a},${b}`,
    storageTargetIds: [target.id],
    nodeId: n.id,
  });
  const record = await runToEnd(m, task.id, agent);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.match(record.fileName, /\.dumps\.tar\.zst\.age$/);
  const contents = await call(m.app, 'GET', `/api/backup/records/${record.id}/contents`, { token: m.token });
  assert.deepEqual(
    contents.json.data.entries.map((e: { path: string }) => e.path),
    [`${a}.sql`, `${b}.sql`],
  );

  const verify = await call(m.app, 'POST', `/api/backup/records/${record.id}/verify`, {
    token: m.token,
    body: { mode: 'deep' },
  });
  const verified = await finished(m, `/api/verify/records/${verify.json.data.id}`);
  assert.equal(verified.status, 'success', verified.errorMessage);
  assert.match(verified.summary, /restored 2 databases .* 2 tables, 370 rows, equal to the counts at backup time/);
  assert.deepEqual(
    (await admin.query(`select datname from pg_database where datname like 'bp\\_verify\\_${verified.id}\\_%'`)).rows,
    [],
    'sandboxes dropped',
  );

  await withDb(a, 'delete from items where id > 3');
  await withDb(b, 'delete from items');
  const restore = await call(m.app, 'POST', `/api/backup/records/${record.id}/restore`, { token: m.token, body: {} });
  assert.equal(restore.status, 200, restore.body);
  const done = await finished(m, `/api/restore/records/${restore.json.data.id}`, agent);
  assert.equal(done.status, 'success', `${done.errorMessage}\n${done.logContent}`);
  assert.equal((await withDb(a, 'select count(*)::int as n from items')).rows[0].n, 300);
  assert.equal((await withDb(b, 'select count(*)::int as n from items')).rows[0].n, 70);
});
