import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { build, call, setupAdmin, userWithRole, apiKeyWithRole, tempDir } from '../helpers/build.ts';
import { NodeEntity } from '../../core/db/entities/node.ts';
import { hashToken } from '../../core/security/tokens.ts';

async function setup(t: TestContext) {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  return { app, admin };
}

const heartbeat = (app: Awaited<ReturnType<typeof setup>>['app'], token: string, body: unknown = {}) =>
  call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': token }, body });

test('create shows the token once, stores only its hash, and the token drives the heartbeat', async (t) => {
  const { app, admin } = await setup(t);
  const created = await call(app, 'POST', '/api/nodes', {
    token: admin,
    body: { name: '  web-1  ', labels: 'eu, ssd,eu', maxConcurrent: 2, bandwidthLimit: '10M' },
  });
  assert.equal(created.status, 200, created.body);
  const { node, token } = created.json.data;
  assert.match(token, /^bpn_[0-9a-f]{64}$/);
  assert.equal(node.name, 'web-1', 'trimmed');
  assert.equal(node.labels, 'eu,ssd');
  assert.equal(node.maxConcurrent, 2);
  assert.equal(node.bandwidthLimit, '10M');
  assert.equal(node.status, 'offline');
  assert.equal(node.lastSeen, null);
  assert.equal(node.isLocal, false);
  assert.equal(node.runningTasks, 0);
  assert.deepEqual(node.queue, { pending: 0, dispatched: 0, depth: 0, timeouts: 0, oldestActiveAgeSeconds: 0 });
  assert.equal(node.health, 'offline', 'never seen');
  assert.ok(!('tokenHash' in node) && !('previousTokenHash' in node));

  const row = await app.diContainer.cradle.orm.em.fork().findOneOrFail(NodeEntity, { id: node.id });
  assert.equal(row.tokenHash, hashToken(token));
  assert.notEqual(row.tokenHash, token);

  const got = await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin });
  assert.equal(got.status, 200);
  assert.ok(!got.body.includes(token) && !got.body.includes(row.tokenHash!), 'GET never shows the token or its hash');
  const list = await call(app, 'GET', '/api/nodes', { token: admin, query: { limit: '10' } });
  assert.equal(list.headers['x-total-count'], '2', 'the local node and this one');
  assert.ok(!list.body.includes(token) && !list.body.includes(row.tokenHash!));

  const hb = await heartbeat(app, token, {
    hostname: 'web-1.example',
    agentVersion: '1.2.3',
    os: 'linux',
    arch: 'amd64',
    ipAddress: '10.0.0.5',
    running: 0,
  });
  assert.equal(hb.status, 200, hb.body);
  assert.equal(hb.json.data.nodeId, node.id);
  assert.equal(hb.json.data.name, 'web-1');
  assert.equal(hb.json.data.maxConcurrent, 2);
  assert.equal(hb.json.data.bandwidthLimit, '10M');
  assert.deepEqual(hb.json.data.labels, ['eu', 'ssd']);
  assert.equal(hb.json.data.offlineAfterSeconds, 45);
  assert.ok(Math.abs(Date.parse(hb.json.data.serverTime) - Date.now()) < 10_000);

  const after = (await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).json.data;
  assert.equal(after.hostname, 'web-1.example');
  assert.equal(after.agentVersion, '1.2.3');
  assert.equal(after.ipAddress, '10.0.0.5');
  assert.equal(after.status, 'online');
  assert.ok(after.lastSeen && Math.abs(Date.parse(after.lastSeen) - Date.now()) < 10_000);

  // No body at all is a heartbeat too.
  const bare = await app.inject({ method: 'POST', url: '/api/agent/heartbeat', headers: { 'x-agent-token': token } });
  assert.equal(bare.statusCode, 200, bare.body);
  assert.equal((await heartbeat(app, token, { hostname: 'x'.repeat(256) })).status, 400, 'bounded lengths');

  // User credentials never open the agent route.
  const adminKey = (await apiKeyWithRole(app, admin, 'admin')).key;
  assert.equal((await call(app, 'POST', '/api/agent/heartbeat', { token: admin, body: {} })).status, 401);
  assert.equal((await call(app, 'POST', '/api/agent/heartbeat', { apiKey: adminKey, body: {} })).status, 401);
  // The node token also opens it as a bearer token, as BackupX's agents send it.
  assert.equal(
    (await call(app, 'POST', '/api/agent/heartbeat', { token, body: {} })).status,
    200,
    'the node token as Bearer',
  );

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.deepEqual(
    audit.json.data.items.map((e: { action: string }) => e.action),
    ['create'],
  );
  assert.ok(!audit.body.includes(token), 'the token is never audited');
});

test('batch creates up to 50 nodes at once; a refused batch creates nothing', async (t) => {
  const { app, admin } = await setup(t);
  const count = async () => (await call(app, 'GET', '/api/nodes', { token: admin })).headers['x-total-count'];
  const fifty = Array.from({ length: 50 }, (_, i) => `n-${i}`);
  const ok = await call(app, 'POST', '/api/nodes/batch', { token: admin, body: { names: fifty } });
  assert.equal(ok.status, 200, ok.body);
  assert.equal(ok.json.data.length, 50);
  assert.ok(
    ok.json.data.every(
      (r: { id: number; token: string; node: { id: number; name: string }; name: string }, i: number) =>
        r.name === `n-${i}` && r.node.id === r.id && r.node.name === r.name && /^bpn_[0-9a-f]{64}$/.test(r.token),
    ),
  );
  assert.equal(new Set(ok.json.data.map((r: { token: string }) => r.token)).size, 50, 'one token per node');

  const refusals: [unknown, number, string][] = [
    [[...fifty, 'extra'].map((n) => `${n}-b`), 400, 'NODE_BATCH_TOO_MANY'],
    [[], 400, 'NODE_BATCH_EMPTY'],
    [['  ', ''], 400, 'NODE_BATCH_EMPTY'],
    [['fresh', 'n-0'], 409, 'NODE_DUPLICATE_NAME'],
    [['fresh', ' fresh '], 409, 'NODE_DUPLICATE_NAME'],
    [['fresh', 'x'.repeat(129)], 400, 'NODE_NAME_TOO_LONG'],
  ];
  for (const [names, status, code] of refusals) {
    const res = await call(app, 'POST', '/api/nodes/batch', { token: admin, body: { names } });
    assert.equal(res.status, status, JSON.stringify(names).slice(0, 80));
    assert.equal(res.json.code, code);
  }
  assert.equal(await count(), '51', 'refused batches create nothing (50 and the local node)');

  const blanks = await call(app, 'POST', '/api/nodes/batch', {
    token: admin,
    body: { names: [' fresh ', '', '   ', 'other'] },
  });
  assert.equal(blanks.status, 200, blanks.body);
  assert.deepEqual(
    blanks.json.data.map((r: { name: string }) => r.name),
    ['fresh', 'other'],
    'trimmed, blank names left out',
  );
  assert.equal(await count(), '53');

  const page = await call(app, 'GET', '/api/nodes', { token: admin, query: { limit: '5', offset: '49' } });
  assert.deepEqual(
    page.json.data.map((n: { name: string }) => n.name),
    ['n-48', 'n-49', 'fresh', 'other'],
    'the local node first, then by id',
  );
});

test('update validates and normalises', async (t) => {
  const { app, admin } = await setup(t);
  const one = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'one' } })).json.data.node;
  await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'two' } });
  assert.equal(one.maxConcurrent, 1);
  assert.equal(one.bandwidthLimit, '');

  const upd = await call(app, 'PUT', `/api/nodes/${one.id}`, {
    token: admin,
    body: { name: ' uno ', labels: [' a', 'b,c', 'a', ''], maxConcurrent: 64, bandwidthLimit: '512K' },
  });
  assert.equal(upd.status, 200, upd.body);
  assert.equal(upd.json.data.name, 'uno');
  assert.equal(upd.json.data.labels, 'a,b,c');
  assert.equal(upd.json.data.maxConcurrent, 64);
  assert.equal(upd.json.data.bandwidthLimit, '512K');
  const keep = await call(app, 'PUT', `/api/nodes/${one.id}`, { token: admin, body: { bandwidthLimit: '' } });
  assert.equal(keep.json.data.bandwidthLimit, '');
  assert.equal(keep.json.data.labels, 'a,b,c', 'absent fields are kept');
  assert.equal(
    (await call(app, 'PUT', `/api/nodes/${one.id}`, { token: admin, body: { name: 'uno' } })).status,
    200,
    'its own name is not a duplicate',
  );

  const unlimited = await call(app, 'PUT', `/api/nodes/${one.id}`, { token: admin, body: { maxConcurrent: 0 } });
  assert.equal(unlimited.status, 200, unlimited.body);
  assert.equal(unlimited.json.data.maxConcurrent, 0, '0 is unlimited');
  for (const body of [
    { maxConcurrent: -1 },
    { maxConcurrent: 65 },
    { bandwidthLimit: 'fast' },
    { bandwidthLimit: '10X' },
    { name: '   ' },
    { name: 'x'.repeat(129) },
  ]) {
    const bad = await call(app, 'PUT', `/api/nodes/${one.id}`, { token: admin, body });
    assert.equal(bad.status, 400, JSON.stringify(body));
    assert.equal(bad.json.code, 'INVALID_INPUT');
  }
  const dup = await call(app, 'PUT', `/api/nodes/${one.id}`, { token: admin, body: { name: 'two' } });
  assert.equal(dup.status, 409);
  assert.equal(dup.json.code, 'NODE_DUPLICATE_NAME');
  const dupCreate = await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'two ' } });
  assert.equal(dupCreate.json.code, 'NODE_DUPLICATE_NAME');

  for (const [method, url] of [
    ['GET', '/api/nodes/999'],
    ['PUT', '/api/nodes/999'],
    ['DELETE', '/api/nodes/999'],
    ['POST', '/api/nodes/999/rotate-token'],
  ] as const) {
    const res = await call(app, method, url, {
      token: admin,
      ...(method === 'PUT' ? { body: { maxConcurrent: 2 } } : {}),
    });
    assert.equal(res.status, 404, `${method} ${url}`);
    assert.equal(res.json.code, 'NODE_NOT_FOUND');
  }
});

test('delete is refused while a backup task uses the node', async (t) => {
  const { app, admin } = await setup(t);
  const node = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'remote' } })).json.data.node;
  const dir = await tempDir(t);
  const target = await call(app, 'POST', '/api/storage-targets', {
    token: admin,
    body: { name: 'disk', type: 'local_disk', config: { basePath: dir } },
  });
  assert.equal(target.status, 200, target.body);
  const task = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: {
      name: 'files',
      type: 'file',
      sourcePaths: ['/srv/data'],
      storageTargetIds: [target.json.data.id],
      nodeId: node.id,
    },
  });
  assert.equal(task.status, 200, task.body);
  assert.equal(task.json.data.nodeId, node.id);

  const refused = await call(app, 'DELETE', `/api/nodes/${node.id}`, { token: admin });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.code, 'NODE_HAS_TASKS');
  assert.equal((await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).status, 200);

  assert.equal((await call(app, 'DELETE', `/api/backup/tasks/${task.json.data.id}`, { token: admin })).status, 200);
  const del = await call(app, 'DELETE', `/api/nodes/${node.id}`, { token: admin });
  assert.equal(del.status, 200, del.body);
  assert.deepEqual(del.json.data, { deleted: true });
  assert.equal((await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).json.code, 'NODE_NOT_FOUND');

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.deepEqual(audit.json.data.items.map((e: { action: string }) => e.action).sort(), ['create', 'delete']);
});

test('rotate-token: the new token works, the old one only during the grace period', async (t) => {
  const { app, admin } = await setup(t);
  const { node, token: oldToken } = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'rot' } }))
    .json.data;
  const rotated = await call(app, 'POST', `/api/nodes/${node.id}/rotate-token`, { token: admin });
  assert.equal(rotated.status, 200, rotated.body);
  const { token: newToken, previousTokenValidUntil, node: view } = rotated.json.data;
  assert.match(newToken, /^bpn_[0-9a-f]{64}$/);
  assert.notEqual(newToken, oldToken);
  assert.equal(view.id, node.id);
  assert.equal(rotated.json.data.newToken, newToken, "BackupX's name for it");
  assert.equal(rotated.headers['cache-control'], 'no-store');
  const graceMs = Date.parse(previousTokenValidUntil) - Date.now();
  assert.ok(graceMs > 23.9 * 3600_000 && graceMs <= 24 * 3600_000, `grace of 24 hours by default (got ${graceMs} ms)`);

  assert.equal((await heartbeat(app, newToken)).status, 200);
  assert.equal((await heartbeat(app, oldToken)).status, 200, 'the old token works within the grace period');

  const em = app.diContainer.cradle.orm.em.fork();
  const row = await em.findOneOrFail(NodeEntity, { id: node.id });
  assert.equal(row.tokenHash, hashToken(newToken));
  assert.equal(row.previousTokenHash, hashToken(oldToken));
  row.previousTokenExpiresAt = new Date(Date.now() - 1000);
  await em.flush();
  // The grace is cut short behind the master's back: its token cache (which would have ended the
  // old token's entry at the grace's real end) is emptied as any change through the API does.
  app.diContainer.cradle.agentTokens.clear();

  const expired = await heartbeat(app, oldToken);
  assert.equal(expired.status, 401);
  assert.equal(expired.json.code, 'AUTH_UNAUTHORIZED');
  assert.equal((await heartbeat(app, newToken)).status, 200);

  const audit = await call(app, 'GET', '/api/audit-logs', { token: admin, query: { category: 'node' } });
  assert.ok(audit.json.data.items.some((e: { action: string }) => e.action === 'rotate_token'));
  assert.ok(!audit.body.includes(oldToken) && !audit.body.includes(newToken));
});

test('roles: viewers read, only admins change nodes', async (t) => {
  const { app, admin } = await setup(t);
  const node = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'n' } })).json.data.node;
  const viewer = (await userWithRole(app, admin, 'viewer')).token;
  const operator = (await userWithRole(app, admin, 'operator')).token;
  assert.equal((await call(app, 'GET', '/api/nodes', { token: viewer })).status, 200);
  assert.equal((await call(app, 'GET', `/api/nodes/${node.id}`, { token: viewer })).status, 200);
  const admins = [
    ['POST', '/api/nodes', { name: 'x' }],
    ['POST', '/api/nodes/batch', { names: ['x'] }],
    ['PUT', `/api/nodes/${node.id}`, { maxConcurrent: 3 }],
    ['DELETE', `/api/nodes/${node.id}`, undefined],
    ['POST', `/api/nodes/${node.id}/rotate-token`, undefined],
  ] as const;
  for (const token of [viewer, operator]) {
    for (const [method, url, body] of admins) {
      const res = await call(app, method, url, { token, body });
      assert.equal(res.status, 403, `${method} ${url}`);
      assert.equal(res.json.code, 'AUTH_FORBIDDEN');
    }
  }
  assert.equal(
    (await call(app, 'GET', '/api/nodes', { token: admin })).headers['x-total-count'],
    '2',
    'nothing changed (the local node and n)',
  );
});

test('the rotation grace is a setting; 0 ends the old token at once', async (t) => {
  const { app } = await build(t, { config: { tokenRotationGraceSeconds: 0 } });
  const admin = await setupAdmin(app);
  const { node, token: oldToken } = (await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'rot' } }))
    .json.data;
  const rotated = await call(app, 'POST', `/api/nodes/${node.id}/rotate-token`, { token: admin });
  assert.equal(rotated.status, 200, rotated.body);
  assert.equal(rotated.json.data.previousTokenValidUntil, null);
  assert.equal((await heartbeat(app, oldToken)).status, 401);
  assert.equal((await heartbeat(app, rotated.json.data.newToken)).status, 200);
});
