import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin, userWithRole } from '../helpers/build.ts';
import { requireOrSkip } from '../helpers/databases.ts';
import { closedPort } from '../helpers/rclone-servers.ts';

test('discovery lists PostgreSQL databases, system ones flagged', async (t) => {
  const url = await requireOrSkip(t, 'postgres');
  if (!url) return;
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const u = new URL(url);
  const res = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { type: 'pgsql', host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username) },
  });
  assert.equal(res.status, 200, res.body);
  const byName = new Map(
    res.json.data.details.map((d: { name: string; system: boolean; sizeBytes: number }) => [d.name, d]),
  );
  assert.equal((byName.get(u.pathname.slice(1)) as { system: boolean }).system, false);
  assert.equal((byName.get('template1') as { system: boolean } | undefined)?.system ?? true, true);
  assert.ok((byName.get(u.pathname.slice(1)) as { sizeBytes: number }).sizeBytes > 0);
  assert.ok(
    res.json.data.databases.includes(u.pathname.slice(1)),
    "the reference's list of names holds the user database",
  );
  assert.ok(
    !res.json.data.databases.includes('template1') && !res.json.data.databases.includes('postgres'),
    "and leaves the server's own out",
  );
});

test('discovery lists MariaDB databases', async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const u = new URL(url);
  const res = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { type: 'mysql', host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username) },
  });
  assert.equal(res.status, 200, res.body);
  const names = res.json.data.details.map((d: { name: string }) => d.name);
  assert.ok(names.includes(u.pathname.slice(1)));
  assert.equal(res.json.data.details.find((d: { name: string }) => d.name === 'mysql')?.system, true);
  assert.ok(res.json.data.databases.includes(u.pathname.slice(1)));
  assert.ok(!res.json.data.databases.includes('mysql'), 'system schemas are left out of the names');
});

test('discovery refuses bad input with coded 4xx and viewers with 403', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const unknown = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { type: 'oracle', host: 'x', user: 'y' },
  });
  assert.equal(unknown.json.code, 'DATABASE_DISCOVER_INVALID_TYPE');
  const missing = await call(app, 'POST', '/api/database/discover', { token: admin, body: { type: 'postgresql' } });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'DATABASE_DISCOVER_INVALID');
  const port = await closedPort();
  const refused = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { type: 'mysql', host: '127.0.0.1', port, user: 'root', password: 'secret-pw' },
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, 'DATABASE_DISCOVER_FAILED');
  assert.ok(!refused.body.includes('secret-pw'));
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const denied = await call(app, 'POST', '/api/database/discover', {
    token: viewer,
    body: { type: 'mysql', host: '127.0.0.1', user: 'root' },
  });
  assert.equal(denied.status, 403);
});

test("discovery for a stored task uses its stored password, and only for the task's own server", async (t) => {
  const url = await requireOrSkip(t, 'mysql');
  if (!url) return;
  const { default: mysql } = await import('mysql2/promise');
  const root = await mysql.createConnection({ uri: url });
  const user = `bp_disc_${process.pid}`;
  const password = 'stored-pw-1';
  await root.query(`drop user if exists '${user}'@'%', '${user}'@'localhost'`);
  await root.query(`create user '${user}'@'%' identified by '${password}'`);
  await root.query(`create user '${user}'@'localhost' identified by '${password}'`);
  t.after(async () => {
    await root.query(`drop user if exists '${user}'@'%', '${user}'@'localhost'`);
    await root.end();
  });
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const u = new URL(url);
  const server = { type: 'mysql', host: u.hostname, port: Number(u.port || 3306), user };
  const target = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'd', type: 'local_disk', config: { basePath: '/tmp' } },
  });
  const task = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: {
      name: 'db',
      type: 'mysql',
      dbHost: server.host,
      dbPort: server.port,
      dbUser: user,
      dbPassword: password,
      dbName: 'test',
      storageTargetIds: [target.json.data.id],
    },
  });
  assert.equal(task.status, 200, task.body);
  const taskId = task.json.data.id as number;

  const withoutPassword = await call(app, 'POST', '/api/database/discover', { token: admin, body: server });
  assert.equal(
    withoutPassword.json.code,
    'DATABASE_DISCOVER_FAILED',
    'the server refuses the user without its password',
  );
  const stored = await call(app, 'POST', '/api/database/discover', { token: admin, body: { ...server, taskId } });
  assert.equal(stored.status, 200, stored.body);
  const masked = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { ...server, password: '********', taskId },
  });
  assert.equal(masked.status, 200, masked.body);
  // A typed password wins; another host or user never gets the stored one.
  const typed = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { ...server, password: 'wrong', taskId },
  });
  assert.equal(typed.json.code, 'DATABASE_DISCOVER_FAILED');
  const elsewhere = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { ...server, host: '127.0.0.2', taskId },
  });
  assert.equal(elsewhere.status, 400);
  assert.equal(elsewhere.json.code, 'DATABASE_DISCOVER_INVALID');
  const missing = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { ...server, taskId: 9999 },
  });
  assert.equal(missing.status, 404);
});
