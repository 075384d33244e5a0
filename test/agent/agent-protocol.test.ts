import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { readdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { build, call, nodeWithToken, setupAdmin, tempDir } from '../helpers/build.ts';
import { diskTarget, createTask } from '../backup/helpers.ts';
import { AgentCommandEntity } from '../../core/db/entities/agent-command.ts';
import { BackupRecordEntryEntity } from '../../core/db/entities/backup-record.ts';
import { scratchPostgres } from '../helpers/databases.ts';
import { TestClock } from '../helpers/test-clock.ts';

const agentCall = (app: FastifyInstance, token: string, method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
  call(app, method, url, { headers: { 'x-agent-token': token }, ...(body === undefined ? {} : { body }) });

async function online(app: FastifyInstance, token: string, inFlight?: number[], starting = false) {
  const res = await agentCall(app, token, 'POST', '/api/agent/heartbeat', {
    hostname: 'h',
    ...(inFlight ? { inFlight } : {}),
    ...(starting ? { starting } : {}),
  });
  assert.equal(res.status, 200, res.body);
  return res.json.data;
}

/** An admin, a node with a live heartbeat, a disk target and a file task placed on the node. */
async function placedTask(t: import('node:test').TestContext, config: Record<string, unknown> = {}, clock?: TestClock) {
  const built = await build(t, { config, build: { clock } });
  const { app } = built;
  const admin = await setupAdmin(app);
  const node = await nodeWithToken(app, 'edge');
  await online(app, node.token);
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  const task = await createTask(app, admin, {
    name: 'Placed',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeId: node.id,
  });
  return { ...built, admin, node, target, task };
}

async function runPlaced(app: FastifyInstance, admin: string, taskId: number): Promise<number> {
  const res = await call(app, 'POST', `/api/backup/tasks/${taskId}/run`, { token: admin });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.json.data.state, 'queued');
  return res.json.data.recordId;
}

test('a placed run becomes a run_task command; a poll claims it once with a lease; the heartbeat reply carries the lease', async (t) => {
  const { app, admin, node, task } = await placedTask(t);
  const beat = await online(app, node.token);
  assert.equal(beat.leaseSeconds, 120);
  const recordId = await runPlaced(app, admin, task.id);
  const polls = await Promise.all(
    Array.from({ length: 10 }, () => agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})),
  );
  const claimed = polls.map((p) => p.json.data.command).filter(Boolean);
  assert.equal(claimed.length, 1);
  assert.equal(claimed[0].type, 'run_task');
  assert.deepEqual(claimed[0].payload, { taskId: task.id, recordId });
  assert.equal(claimed[0].attempt, 1);
  const view = (await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).json.data;
  assert.deepEqual(
    [view.health, view.queue.pending, view.queue.dispatched, view.queue.depth],
    ['healthy', 0, 1, 1],
    'claimed: dispatched',
  );
  assert.ok(view.queue.oldestActiveAgeSeconds >= 0 && typeof view.queue.oldestActiveAt === 'string');
  const again = await call(app, 'POST', `/api/backup/tasks/${task.id}/run`, { token: admin });
  assert.equal(again.status, 409, 'one queued-or-running record per task, on nodes too');
});

test('no command is claimed twice by concurrent pollers', async (t) => {
  const { app } = await build(t);
  const node = await nodeWithToken(app, 'busy');
  const queue = app.diContainer.cradle.commandQueue;
  for (let i = 0; i < 40; i++) await queue.enqueue({ nodeId: node.id, type: 'list_dir', payload: { path: '/' } });
  const ids: number[] = [];
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      for (let round = 0; round < 10; round++) {
        const res = await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
        if (res.json.data.command) ids.push(res.json.data.command.id);
      }
    }),
  );
  assert.equal(ids.length, 40);
  assert.equal(new Set(ids).size, 40);
});

test('results are owner-checked and idempotent; a command taken back answers 409', async (t) => {
  const clock = new TestClock();
  const { app } = await build(t, { config: { commandLeaseSeconds: 1 }, build: { clock } });
  const a = await nodeWithToken(app, 'a');
  const b = await nodeWithToken(app, 'b');
  const queue = app.diContainer.cradle.commandQueue;
  const first = await queue.enqueue({ nodeId: a.id, type: 'list_dir', payload: { path: '/' } });
  assert.equal((await agentCall(app, a.token, 'POST', '/api/agent/commands/poll', {})).json.data.command.id, first.id);
  const body = { success: true, result: { entries: [] } };
  const foreign = await agentCall(app, b.token, 'POST', `/api/agent/commands/${first.id}/result`, body);
  assert.equal(foreign.status, 403);
  assert.equal(foreign.json.code, 'AGENT_COMMAND_FORBIDDEN');
  assert.equal(
    (await agentCall(app, a.token, 'POST', '/api/agent/commands/999999/result', body)).json.code,
    'AGENT_COMMAND_NOT_FOUND',
  );
  const ok1 = await agentCall(app, a.token, 'POST', `/api/agent/commands/${first.id}/result`, body);
  assert.equal(ok1.status, 200, ok1.body);
  assert.equal(ok1.json.data.status, 'succeeded');
  assert.equal(
    (await agentCall(app, a.token, 'POST', `/api/agent/commands/${first.id}/result`, body)).status,
    200,
    'a repeat is answered again',
  );

  const second = await queue.enqueue({ nodeId: a.id, type: 'list_dir', payload: { path: '/' } });
  await agentCall(app, a.token, 'POST', '/api/agent/commands/poll', {});
  await clock.advance(1100);
  await app.diContainer.cradle.leaseMonitor.sweep();
  const late = await agentCall(app, a.token, 'POST', `/api/agent/commands/${second.id}/result`, body);
  assert.equal(late.status, 409);
  assert.equal(late.json.code, 'AGENT_COMMAND_NOT_CLAIMED');
});

test('the lease monitor sweeps on its own as time passes: a lapsed claim is settled without anyone asking', async (t) => {
  const clock = new TestClock();
  const { app } = await build(t, { config: { commandLeaseSeconds: 4 }, build: { clock } });
  const node = await nodeWithToken(app, 'quiet');
  const queue = app.diContainer.cradle.commandQueue;
  const command = await queue.enqueue({ nodeId: node.id, type: 'list_dir', payload: { path: '/' } });
  assert.equal(
    (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command.id,
    command.id,
  );
  await clock.advance(3000);
  assert.equal((await queue.get(command.id))?.status, 'claimed', 'within its lease');
  await clock.advance(2000); // the lease lapsed at 4 s; the monitor sweeps every second
  const settled = await queue.get(command.id);
  assert.equal(settled?.status, 'failed');
  assert.match(settled?.error ?? '', /lease lapsed/);
});

test('a lapsed lease re-queues a run that never started (up to three claims), then fails it with the reason', async (t) => {
  const clock = new TestClock();
  const { app, admin, node, task } = await placedTask(t, { commandLeaseSeconds: 1 }, clock);
  const recordId = await runPlaced(app, admin, task.id);
  for (let attempt = 1; attempt <= 3; attempt++) {
    const claim = await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
    assert.equal(claim.json.data.command?.attempt, attempt, claim.body);
    await clock.advance(1100);
    await app.diContainer.cradle.leaseMonitor.sweep();
  }
  const record = await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin });
  assert.equal(record.json.data.status, 'failed');
  assert.match(record.json.data.errorMessage, /lease lapsed.*never started/);
  await online(app, node.token);
  const view = (await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).json.data;
  assert.equal(view.health, 'degraded', 'work lost in the last day shows');
  assert.equal(view.queue.timeouts, 1, 'one command, taken back three times');
  assert.equal(view.queue.depth, 0);
});

test("agent routes refuse another node's records, tasks and restores", async (t) => {
  const { app, admin, task } = await placedTask(t);
  const other = await nodeWithToken(app, 'other');
  const recordId = await runPlaced(app, admin, task.id);
  const spec = await agentCall(app, other.token, 'GET', `/api/agent/tasks/${task.id}?recordId=${recordId}`);
  assert.equal(spec.status, 403);
  assert.equal(spec.json.code, 'AGENT_COMMAND_FORBIDDEN');
  assert.equal(
    (await agentCall(app, other.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' })).status,
    403,
  );
  assert.equal(
    (await agentCall(app, other.token, 'GET', '/api/agent/restores/999999/spec')).json.code,
    'RESTORE_RECORD_NOT_FOUND',
  );
});

test('the task spec: relay targets carry no credentials, the recipient is public, the private identity never leaves', async (t) => {
  const { app, admin, node, task, target } = await placedTask(t);
  const recordId = await runPlaced(app, admin, task.id);
  const spec = await agentCall(app, node.token, 'GET', `/api/agent/tasks/${task.id}?recordId=${recordId}`);
  assert.equal(spec.status, 200, spec.body);
  const s = spec.json.data;
  assert.deepEqual(s.targets, [{ id: target.id, name: 'disk', mode: 'relay', type: 'local_disk' }]);
  assert.match(s.recipient, /^age1/);
  assert.doesNotMatch(spec.body, /AGE-SECRET-KEY/);
  assert.match(s.storageKey, new RegExp(`/${recordId}-.*\\.tar\\.zst\\.age$`));
});

async function put(
  url: string,
  token: string,
  body: Buffer,
  headers: Record<string, string>,
): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'PUT', headers: { 'x-agent-token': token, 'content-type': 'application/octet-stream', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('the relay checks uploads as they stream: no length 411, wrong key 400, wrong hash 422, nothing kept; terminal records ignore late updates', async (t) => {
  const { app, admin, node, task, target } = await placedTask(t);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const recordId = await runPlaced(app, admin, task.id);
  await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
  const spec = (await agentCall(app, node.token, 'GET', `/api/agent/tasks/${task.id}?recordId=${recordId}`)).json.data;
  assert.equal(
    (
      await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
        status: 'running',
        logs: [{ level: 'info', message: 'hello' }],
      })
    ).json.data.accepted,
    true,
  );
  const body = Buffer.from('not really an artifact');
  const good = (await import('node:crypto')).createHash('sha256').update(body).digest('hex');
  const path = `${url}/api/agent/records/${recordId}/artifacts/${target.id}`;
  const chunked = await put(path, node.token, body, {
    'transfer-encoding': 'chunked',
    'x-backplane-sha256': good,
    'x-backplane-object-key': spec.storageKey,
  });
  assert.equal(chunked.status, 411);
  assert.equal(chunked.json.code, 'CONTENT_LENGTH_REQUIRED');
  const wrongKey = await put(path, node.token, body, {
    'content-length': String(body.length),
    'x-backplane-sha256': good,
    'x-backplane-object-key': 'elsewhere/x',
  });
  assert.equal(wrongKey.json.code, 'AGENT_OBJECT_KEY_INVALID');
  const wrongHash = await put(path, node.token, body, {
    'content-length': String(body.length),
    'x-backplane-sha256': 'f'.repeat(64),
    'x-backplane-object-key': spec.storageKey,
  });
  assert.equal(wrongHash.status, 422);
  assert.equal(wrongHash.json.code, 'AGENT_CHECKSUM_MISMATCH');
  assert.deepEqual(
    (await readdir(target.dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name),
    [],
  );
  const stored = await put(path, node.token, body, {
    'content-length': String(body.length),
    'x-backplane-sha256': good,
    'x-backplane-object-key': spec.storageKey,
  });
  assert.equal(stored.status, 200);
  assert.equal(stored.json.data.size, body.length);

  const done = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    status: 'success',
    checksum: good,
    fileSize: body.length,
    rawSize: 100,
  });
  assert.equal(done.json.data.status, 'success', done.body);
  const late = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    status: 'failed',
    errorMessage: 'too late',
  });
  assert.deepEqual(late.json.data, { accepted: false, status: 'success' });
  const record = (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data;
  assert.equal(record.status, 'success');
  assert.equal(record.checksum, good);
});

test('an agent claiming success for a relay target it never uploaded gets a failed record, not a successful one', async (t) => {
  const { app, admin, node, task } = await placedTask(t);
  const recordId = await runPlaced(app, admin, task.id);
  await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
  await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' });
  const done = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    status: 'success',
    checksum: 'a'.repeat(64),
    fileSize: 10,
    rawSize: 10,
  });
  assert.equal(done.json.data.status, 'failed');
  const record = (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data;
  assert.match(record.errorMessage, /never relayed/);
});

test('a manifest naming entries outside the archive is refused with 422 AGENT_MANIFEST_INVALID: the run fails and lists nothing', async (t) => {
  const { app, admin, node, task } = await placedTask(t);
  const entry = (path: string) => ({ path, type: 'file', size: 5, mode: 0o644, mtime: new Date().toISOString() });
  for (const hostile of ['../../pwned.txt', '/etc/passwd', 'a/../../b', '', '.', './x', 'a//b', 'dir/']) {
    const recordId = await runPlaced(app, admin, task.id);
    await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
    // An honest first batch, then the hostile one: nothing of either may stay listed.
    const honest = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
      status: 'running',
      manifest: [entry('srv/data/ok.txt')],
    });
    assert.equal(honest.status, 200, honest.body);
    const refused = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
      manifest: [entry('srv/data/fine.txt'), entry(hostile)],
    });
    assert.equal(refused.status, 422, `${JSON.stringify(hostile)}: ${refused.body}`);
    assert.equal(refused.json.code, 'AGENT_MANIFEST_INVALID');
    const record = (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data;
    assert.equal(record.status, 'failed', JSON.stringify(hostile));
    assert.match(record.errorMessage, /manifest was refused/);
    const contents = await call(app, 'GET', `/api/backup/records/${recordId}/contents`, { token: admin });
    assert.equal(contents.json.code, 'BACKUP_CONTENTS_UNAVAILABLE', contents.body);
    assert.equal(
      await app.diContainer.cradle.orm.em.fork().count(BackupRecordEntryEntity, { recordId }),
      0,
      JSON.stringify(hostile),
    );
    // The agent's later success is not believed.
    const late = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
      status: 'success',
      checksum: 'a'.repeat(64),
      fileSize: 10,
      rawSize: 10,
    });
    assert.deepEqual(late.json.data, { accepted: false, status: 'failed' });
  }
  // A NUL byte anywhere in a request is refused before any route (input-guard): nothing is stored.
  const recordId = await runPlaced(app, admin, task.id);
  await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
  const nul = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    status: 'running',
    manifest: [entry('a/\u0000b')],
  });
  assert.equal(nul.status, 400, nul.body);
  assert.equal(await app.diContainer.cradle.orm.em.fork().count(BackupRecordEntryEntity, { recordId }), 0);
});

test('placement: a label pool picks the least busy online node; with none online the run is recorded failed and answered 409 NODE_OFFLINE', async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  const mk = async (name: string, labels: string[]) => {
    const res = await call(app, 'POST', '/api/nodes', { token: admin, body: { name, labels } });
    return { id: res.json.data.node.id as number, token: res.json.data.token as string };
  };
  const a = await mk('pool-a', ['db']);
  const b = await mk('pool-b', ['db']);
  await mk('pool-c', ['web']);
  const t1 = await createTask(app, admin, {
    name: 'Pool 1',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeLabel: 'db',
  });
  const t2 = await createTask(app, admin, {
    name: 'Pool 2',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [target.id],
    nodeLabel: 'db',
  });
  const both = await call(app, 'POST', '/api/backup/tasks', {
    token: admin,
    body: {
      name: 'Both',
      type: 'file',
      sourcePaths: [src],
      storageTargetIds: [target.id],
      nodeLabel: 'db',
      nodeId: a.id,
    },
  });
  assert.equal(both.status, 400);

  const refused = await call(app, 'POST', `/api/backup/tasks/${t1.id}/run`, { token: admin });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.code, 'NODE_OFFLINE');
  assert.match(refused.json.message, /label "db"/);
  const failed = (await call(app, 'GET', '/api/backup/records', { token: admin, query: { taskId: String(t1.id) } }))
    .json.data;
  assert.deepEqual(
    failed.map((r: any) => [r.id, r.status]),
    [[refused.json.details.recordId, 'failed']],
  );
  assert.match(failed[0].errorMessage, /label "db"/);

  await online(app, a.token);
  await online(app, b.token);
  const r1 = await runPlaced(app, admin, t1.id);
  const r2 = await runPlaced(app, admin, t2.id);
  const nodes = await Promise.all(
    [r1, r2].map(
      async (id) => (await call(app, 'GET', `/api/backup/records/${id}`, { token: admin })).json.data.nodeId,
    ),
  );
  assert.deepEqual(nodes.sort(), [a.id, b.id].sort(), 'the second run goes to the idle node');

  // Asked for at the same moment, the runs still see each other: one per node.
  const concurrent = await Promise.all(
    ['3', '4', '5', '6'].map((n) =>
      createTask(app, admin, {
        name: `Pool ${n}`,
        type: 'file',
        sourcePaths: [src],
        storageTargetIds: [target.id],
        nodeLabel: 'db',
      }),
    ),
  );
  const records = await Promise.all(concurrent.map((task) => runPlaced(app, admin, task.id)));
  const placed = await Promise.all(
    records.map(
      async (id) => (await call(app, 'GET', `/api/backup/records/${id}`, { token: admin })).json.data.nodeId as number,
    ),
  );
  assert.deepEqual(
    [a.id, b.id].map((id) => placed.filter((n) => n === id).length),
    [2, 2],
    `placed on ${placed.join(', ')}`,
  );
});

test("placement: maxConcurrent 0 is unlimited, so the pool fills that node past the others' slots; the agent hears 0", async (t) => {
  const { app } = await build(t);
  const admin = await setupAdmin(app);
  const target = await diskTarget(t, app, admin);
  const src = await tempDir(t);
  const mk = async (name: string, maxConcurrent: number) => {
    const res = await call(app, 'POST', '/api/nodes', { token: admin, body: { name, labels: ['db'], maxConcurrent } });
    assert.equal(res.status, 200, res.body);
    return { id: res.json.data.node.id as number, token: res.json.data.token as string };
  };
  const one = await mk('one-slot', 1);
  const unlimited = await mk('unlimited', 0);
  assert.equal((await online(app, one.token)).maxConcurrent, 1);
  assert.equal((await online(app, unlimited.token)).maxConcurrent, 0);
  const placed: number[] = [];
  for (const name of ['A', 'B', 'C']) {
    const task = await createTask(app, admin, {
      name: `Pool ${name}`,
      type: 'file',
      sourcePaths: [src],
      storageTargetIds: [target.id],
      nodeLabel: 'db',
    });
    const recordId = await runPlaced(app, admin, task.id);
    placed.push((await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data.nodeId);
  }
  // Both idle: the lower id. Then the one-slot node is full, the unlimited one never is.
  assert.deepEqual(placed, [one.id, unlimited.id, unlimited.id]);
});

test('heartbeats renew only what the agent lists; a starting agent abandons what its predecessor held, and a started run fails at once', async (t) => {
  const clock = new TestClock();
  const { app, admin, node, task } = await placedTask(t, { commandLeaseSeconds: 30 }, clock);
  const recordId = await runPlaced(app, admin, task.id);
  const claim = (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' });
  const lease = async () =>
    (
      await app.diContainer.cradle.orm.em.fork().findOneOrFail(AgentCommandEntity, { id: claim.id })
    ).leaseExpiresAt!.getTime();
  const before = await lease();
  await clock.advance(20);
  await online(app, node.token, [claim.id]);
  assert.ok((await lease()) > before, 'listed: renewed');
  const renewed = await lease();
  await clock.advance(20);
  // A claim still on its way to the agent is not listed yet: it is neither renewed nor abandoned.
  await online(app, node.token, []);
  assert.equal(await lease(), renewed);
  assert.equal(
    (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data.state,
    'running',
  );
  await online(app, node.token, [], true);
  const record = (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data;
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /agent restarted/);
  const command = await app.diContainer.cradle.orm.em.fork().findOneOrFail(AgentCommandEntity, { id: claim.id });
  assert.equal(command.status, 'failed');
});

test('a master restart mid-run keeps the placed record running and its lease fresh', async (t) => {
  const dataDir = await tempDir(t);
  const first = await build(t, { dataDir });
  const admin = await setupAdmin(first.app);
  const node = await nodeWithToken(first.app, 'edge');
  await online(first.app, node.token);
  const target = await diskTarget(t, first.app, admin);
  const task = await createTask(first.app, admin, {
    name: 'Survives',
    type: 'file',
    sourcePaths: [dataDir],
    storageTargetIds: [target.id],
    nodeId: node.id,
  });
  const recordId = await runPlaced(first.app, admin, task.id);
  const claim = (await agentCall(first.app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  await agentCall(first.app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' });
  await first.app.close();

  const second = await build(t, { dataDir });
  const login = await call(second.app, 'POST', '/api/auth/login', {
    body: { username: 'admin', password: 'admin-password-1' },
  });
  const record = (await call(second.app, 'GET', `/api/backup/records/${recordId}`, { token: login.json.data.token }))
    .json.data;
  assert.equal(record.state, 'running');
  const command = await second.app.diContainer.cradle.orm.em.fork().findOneOrFail(AgentCommandEntity, { id: claim.id });
  assert.equal(command.status, 'claimed');
  assert.ok(command.leaseExpiresAt!.getTime() > Date.now() + 60_000);
  const update = await agentCall(second.app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    logs: [{ level: 'info', message: 'still here' }],
  });
  assert.equal(update.json.data.accepted, true);
});

test("a command's secrets are sealed in the table and handed out only with the claim", async (t) => {
  const { app } = await build(t);
  const node = await nodeWithToken(app, 'secretive');
  const queue = app.diContainer.cradle.commandQueue;
  const command = await queue.enqueue({
    nodeId: node.id,
    type: 'discover_db',
    payload: { type: 'postgresql', config: { host: 'db' } },
    secrets: { password: 's3cret-pass' },
  });
  const row = await app.diContainer.cradle.orm.em.fork().findOneOrFail(AgentCommandEntity, { id: command.id });
  assert.ok(row.secrets.length > 0 && !row.secrets.includes('s3cret-pass') && !row.payload.includes('s3cret-pass'));
  const claim = (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  assert.deepEqual(claim.payload, { type: 'postgresql', config: { host: 'db' }, password: 's3cret-pass' });
});

test('a run whose claim the master took back is stale: its updates and uploads are refused, and the re-queued command runs afresh', async (t) => {
  const clock = new TestClock();
  const { app, admin, node, task } = await placedTask(t, { commandLeaseSeconds: 1 }, clock);
  const recordId = await runPlaced(app, admin, task.id);
  const first = (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  await clock.advance(1100);
  await app.diContainer.cradle.leaseMonitor.sweep();
  const stale = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' });
  assert.deepEqual(stale.json.data, { accepted: false, status: 'queued' });
  const second = (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  assert.equal(second.id, first.id);
  assert.equal(second.attempt, 2);
  assert.equal(
    (await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' })).json.data
      .accepted,
    true,
  );
});

test('on PostgreSQL (scale-out mode) too, concurrent pollers never claim a command twice', async (t) => {
  const url = await scratchPostgres(t, 'backplane_queue');
  if (!url) return;
  const { app } = await build(t, { config: { databaseUrl: url } });
  const node = await nodeWithToken(app, 'pg-busy');
  const queue = app.diContainer.cradle.commandQueue;
  for (let i = 0; i < 60; i++) await queue.enqueue({ nodeId: node.id, type: 'list_dir', payload: { path: '/' } });
  const ids: number[] = [];
  await Promise.all(
    Array.from({ length: 30 }, async () => {
      for (let round = 0; round < 10; round++) {
        const res = await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {});
        if (res.json.data.command) ids.push(res.json.data.command.id);
      }
    }),
  );
  assert.equal(new Set(ids).size, ids.length, 'no id twice');
  assert.equal(ids.length, 60);
});

test('a refused update or upload changes nothing: the lease is not renewed and a lapsed run is not revived', async (t) => {
  const clock = new TestClock();
  const { app, admin, node, task, target } = await placedTask(t, { commandLeaseSeconds: 30 }, clock);
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const recordId = await runPlaced(app, admin, task.id);
  const claim = (await agentCall(app, node.token, 'POST', '/api/agent/commands/poll', {})).json.data.command;
  const spec = (await agentCall(app, node.token, 'GET', `/api/agent/tasks/${task.id}?recordId=${recordId}`)).json.data;
  assert.equal(
    (await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'running' })).json.data
      .accepted,
    true,
  );
  const lease = async () =>
    (
      await app.diContainer.cradle.orm.em.fork().findOneOrFail(AgentCommandEntity, { id: claim.id })
    ).leaseExpiresAt!.getTime();
  const before = await lease();
  await clock.advance(20_000);

  const bare = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, { status: 'success' });
  assert.equal(bare.status, 400);
  assert.equal(bare.json.code, 'INVALID_INPUT');
  assert.equal(await lease(), before, 'a refused update leaves the lease alone');
  const body = Buffer.from('bytes');
  const sha = (await import('node:crypto')).createHash('sha256').update(body).digest('hex');
  const path = `${url}/api/agent/records/${recordId}/artifacts/${target.id}`;
  const wrongKey = await put(path, node.token, body, {
    'content-length': String(body.length),
    'x-backplane-sha256': sha,
    'x-backplane-object-key': 'elsewhere/x',
  });
  assert.equal(wrongKey.json.code, 'AGENT_OBJECT_KEY_INVALID');
  const wrongTarget = await put(`${url}/api/agent/records/${recordId}/artifacts/99999`, node.token, body, {
    'content-length': String(body.length),
    'x-backplane-sha256': sha,
    'x-backplane-object-key': spec.storageKey,
  });
  assert.equal(wrongTarget.json.code, 'AGENT_TARGET_INVALID');
  assert.equal(await lease(), before, 'a refused upload leaves the lease alone');

  // The lease lapses as it would have without the refused requests: the run fails.
  await clock.advance(11_000);
  await app.diContainer.cradle.leaseMonitor.sweep();
  const record = (await call(app, 'GET', `/api/backup/records/${recordId}`, { token: admin })).json.data;
  assert.equal(record.status, 'failed');
  assert.match(record.errorMessage, /lease lapsed/);
  // The agent learns it from its next update.
  const accepted = await agentCall(app, node.token, 'POST', `/api/agent/records/${recordId}`, {
    logs: [{ level: 'info', message: 'late' }],
  });
  assert.deepEqual(accepted.json.data, { accepted: false, status: 'failed' });
});
