import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { hostname } from 'node:os';
import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { build, call, setupAdmin, tempDir, userWithRole } from '../helpers/build.ts';
import { createTask, diskTarget, runAndWait } from '../backup/helpers.ts';
import { closedPort } from '../helpers/rclone-servers.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { VERSION } from '../../core/engine/host/installation.ts';

async function setup(t: TestContext, config: Record<string, unknown> = {}, dataDir?: string) {
  const { app } = await build(t, { config, ...(dataDir ? { dataDir } : {}) });
  const admin = await setupAdmin(app);
  const local = (await call(app, 'GET', '/api/nodes', { token: admin })).json.data[0];
  return { app, admin, local };
}

test('the master is the local node: listed first, always online, created once', async (t) => {
  const dataDir = await tempDir(t);
  const { app, admin, local } = await setup(t, {}, dataDir);
  await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'remote' } });
  const list = (await call(app, 'GET', '/api/nodes', { token: admin })).json.data;
  assert.deepEqual(
    list.map((n: { isLocal: boolean }) => n.isLocal),
    [true, false],
  );
  assert.equal(local.status, 'online');
  assert.equal(local.health, 'healthy');
  assert.equal(local.hostname, hostname());
  assert.equal(local.agentVersion, VERSION);
  assert.equal(local.maxConcurrent, 0, "the master's own concurrency (BACKPLANE_MAX_CONCURRENT) applies");
  assert.ok(Math.abs(Date.parse(local.lastSeen) - Date.now()) < 60_000);
  assert.equal((await call(app, 'GET', `/api/nodes/${local.id}`, { token: admin })).json.data.isLocal, true);
  await app.close();

  // A restart on the same data keeps the one local node.
  const again = await build(t, { dataDir });
  const locals = await again.app.diContainer.cradle.orm.em.fork().find(NodeEntity, { isLocal: true });
  assert.deepEqual(
    locals.map((n) => n.id),
    [local.id],
  );
});

test('the local node cannot be deleted, rotated or given installers; its name and labels can change, its slots and bandwidth cannot', async (t) => {
  const { app, admin, local } = await setup(t);
  const refusals = [
    ['DELETE', `/api/nodes/${local.id}`, 'NODE_DELETE_LOCAL'],
    ['POST', `/api/nodes/${local.id}/rotate-token`, 'NODE_ROTATE_LOCAL'],
    ['POST', `/api/nodes/${local.id}/install-tokens`, 'NODE_INSTALL_LOCAL'],
    ['GET', `/api/nodes/${local.id}/install-script-preview`, 'NODE_INSTALL_LOCAL'],
  ] as const;
  for (const [method, url, code] of refusals) {
    const res = await call(app, method, url, { token: admin });
    assert.equal(res.status, 400, `${method} ${url}`);
    assert.equal(res.json.code, code);
  }
  // BackupX's edit form sends every field with its current value.
  const edited = await call(app, 'PUT', `/api/nodes/${local.id}`, {
    token: admin,
    body: { name: 'This master', labels: 'files', maxConcurrent: 0, bandwidthLimit: '' },
  });
  assert.equal(edited.status, 200, edited.body);
  assert.equal(edited.json.data.name, 'This master');
  assert.equal(edited.json.data.labels, 'files');
  for (const body of [{ maxConcurrent: 3 }, { bandwidthLimit: '10M' }]) {
    const res = await call(app, 'PUT', `/api/nodes/${local.id}`, { token: admin, body });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.json.code, 'NODE_LOCAL_SETTING_UNSUPPORTED');
  }
  assert.equal(await app.diContainer.cradle.orm.em.fork().count(NodeEntity, { isLocal: true }), 1, 'still there');
});

test('a task placed on the local node, or on a pool only the local node serves, runs on the master', async (t) => {
  const { app, admin, local } = await setup(t);
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  await writeFile(join(src, 'a.txt'), 'hello');
  const placed = await createTask(app, admin, {
    name: 'On local',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: local.id,
  });
  const record = await runAndWait(app, admin, placed.id);
  assert.equal(record.status, 'success', record.errorMessage);
  assert.equal(record.nodeId, 0, "the master's own records carry node 0");

  await call(app, 'PUT', `/api/nodes/${local.id}`, { token: admin, body: { labels: ['files'] } });
  const remote = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'edge', labels: ['files'] } }))
    .json.data.node;
  assert.equal(remote.status, 'offline');
  const pooled = await createTask(app, admin, {
    name: 'Pooled',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeLabel: 'files',
  });
  const pooledRecord = await runAndWait(app, admin, pooled.id);
  assert.equal(pooledRecord.status, 'success', pooledRecord.errorMessage);
  assert.equal(pooledRecord.nodeId, 0);
  assert.equal(await app.diContainer.cradle.orm.em.fork().count(AgentCommandEntity, {}), 0, 'no agent command at all');
});

test('database discovery on the local node runs on the master', async (t) => {
  const { app, admin, local } = await setup(t);
  const port = await closedPort();
  const res = await call(app, 'POST', '/api/database/discover', {
    token: admin,
    body: { type: 'mysql', host: '127.0.0.1', port, user: 'root', nodeId: local.id },
  });
  assert.equal(res.status, 400, res.body);
  assert.equal(res.json.code, 'DATABASE_DISCOVER_FAILED', 'the master tried, no agent was asked');
  assert.equal(await app.diContainer.cradle.orm.em.fork().count(AgentCommandEntity, {}), 0);
});

test("the local node's filesystem is browsed within the configured roots, links included", async (t) => {
  const base = await realpath(await tempDir(t));
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  await mkdir(join(root, 'data', 'deep'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(root, 'data', 'f.txt'), 'hello');
  await writeFile(join(outside, 'secret.txt'), 'x');
  await symlink(outside, join(root, 'escape'));
  await symlink(join(root, 'data'), join(root, 'inside-link'));
  const { app, admin, local } = await setup(t, { localFsRoots: [root] });
  const list = (path: string, token = admin) =>
    call(app, 'GET', `/api/nodes/${local.id}/fs/list`, { token, query: { path } });

  const inRoot = await list(root);
  assert.equal(inRoot.status, 200, inRoot.body);
  assert.deepEqual(
    inRoot.json.data.map((e: { name: string; isDir: boolean }) => [e.name, e.isDir]),
    [
      ['data', true],
      ['inside-link', true],
    ],
    'the link leading out is left out',
  );
  assert.equal(inRoot.headers['x-total-count'], '2');
  const data = (await list(join(root, 'data'))).json.data;
  assert.deepEqual(
    data.map((e: { name: string; path: string; size: number }) => [e.name, e.path, e.size]),
    [
      ['deep', join(root, 'data', 'deep'), 0],
      ['f.txt', join(root, 'data', 'f.txt'), 5],
    ],
  );

  // From `/` down, only the way to the root shows.
  const top = await list('/');
  assert.equal(top.status, 200, top.body);
  assert.deepEqual(
    top.json.data.map((e: { name: string; isDir: boolean }) => [e.name, e.isDir]),
    [[base.split(sep)[1], true]],
  );
  assert.deepEqual(
    (await list(base)).json.data.map((e: { path: string }) => e.path),
    [root],
    'not "outside"',
  );

  for (const path of [
    outside,
    join(root, 'escape'),
    join(root, 'escape', 'nothing-here'),
    '/proc',
    join(root, '..', 'outside'),
  ]) {
    const res = await list(path);
    assert.equal(res.status, 403, path);
    assert.equal(res.json.code, 'NODE_FS_OUTSIDE_ROOTS');
  }
  const missing = await list(join(root, 'nope'));
  assert.equal(missing.status, 400);
  assert.equal(missing.json.code, 'NODE_FS_FAILED');
  const file = await list(join(root, 'data', 'f.txt'));
  assert.equal(file.json.code, 'NODE_FS_FAILED', 'a file is not a folder');
  assert.equal((await list('relative/path')).json.code, 'INVALID_INPUT');

  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  assert.equal((await list(root, viewer)).status, 403);
  const operator = (await userWithRole(app, admin, 'operator')).token;
  assert.equal((await list(root, operator)).status, 200, 'operators browse');
});

test('no roots configured: nothing of the master is shown', async (t) => {
  const { app, admin, local } = await setup(t, { localFsRoots: [] });
  const res = await call(app, 'GET', `/api/nodes/${local.id}/fs/list`, { token: admin, query: { path: '/' } });
  assert.equal(res.status, 403);
  assert.equal(res.json.code, 'NODE_FS_OUTSIDE_ROOTS');
});
