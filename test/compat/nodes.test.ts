import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Type } from 'typebox';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { expectEnvelope, expectShape, Nullable, Opt, Ref, Time } from './reference-shape.ts';

const run = promisify(execFile);

// ---- BackupX's shapes -------------------------------------------------------------------------

/** web/src/types/nodes.ts NodeQueueSummary; server/internal/service/node_service.go NodeQueue (always emits oldestActiveAgeSeconds). */
const NodeQueueSummary = Ref({
  pending: Type.Integer(),
  dispatched: Type.Integer(),
  depth: Type.Integer(),
  timeouts: Type.Integer(),
  oldestActiveAt: Opt(Time),
  oldestActiveAgeSeconds: Type.Integer(),
});

/**
 * web/src/types/nodes.ts NodeSummary; node_service.go NodeSummary (which always emits
 * maxConcurrent, bandwidthLimit, labels, queue, runningTasks and health). `lastSeen` is a Go
 * time there; Backplane sends null for a node never seen (docs/api-decisions.md), which the
 * console renders as "-".
 */
const NodeSummary = Ref({
  id: Type.Integer(),
  name: Type.String(),
  hostname: Type.String(),
  ipAddress: Type.String(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  isLocal: Type.Boolean(),
  os: Type.String(),
  arch: Type.String(),
  agentVersion: Type.String(),
  lastSeen: Nullable(Time),
  maxConcurrent: Type.Integer(),
  bandwidthLimit: Type.String(),
  labels: Type.String(),
  createdAt: Time,
  queue: NodeQueueSummary,
  runningTasks: Type.Integer(),
  lastError: Opt(Type.String()),
  health: Type.Union([Type.Literal('healthy'), Type.Literal('degraded'), Type.Literal('offline')]),
});

/** web/src/types/nodes.ts DirEntry; node_service.go DirEntry. */
const DirEntry = Ref({ name: Type.String(), path: Type.String(), isDir: Type.Boolean(), size: Type.Number() });

/** web/src/types/nodes.ts BatchCreateResult; node_service.go NodeCreateResult. */
const BatchCreateResult = Ref({ id: Type.Integer(), name: Type.String() });

/** web/src/types/nodes.ts InstallTokenResult; node_handler.go CreateInstallToken's body. */
const InstallTokenResult = Ref({
  installToken: Type.String(),
  expiresAt: Time,
  url: Type.String({ minLength: 1 }),
  fallbackUrl: Opt(Type.String()),
  scriptBase64: Opt(Type.String()),
  composeUrl: Type.String(),
  fallbackComposeUrl: Opt(Type.String()),
});

/** web/src/services/nodes.ts createNode: `{token}`. */
const CreatedNode = Ref({ token: Type.String({ minLength: 1 }) });

/** web/src/services/nodes.ts rotateNodeToken: `{newToken}`. */
const RotatedToken = Ref({ newToken: Type.String({ minLength: 1 }) });

/** server/internal/service/agent_service.go AgentSelfStatus (what the install script probes). */
const AgentSelfStatus = Ref({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.String(),
  lastSeen: Nullable(Time),
});

/** web/src/pages/nodes/AgentInstallWizard.tsx toInstallTokenInput: what the console sends. */
const consoleInstallInput = (over: Record<string, unknown> = {}) => ({
  mode: 'systemd',
  arch: 'auto',
  agentVersion: '0.1.0',
  downloadSrc: 'github',
  ttlSeconds: 900,
  ...over,
});

const INSTALL_MARKER = 'BACKUPX_AGENT_INSTALL_V1';

// ---- helpers ----------------------------------------------------------------------------------

async function setup(t: TestContext, config: Record<string, unknown> = {}) {
  const { app } = await build(t, { config });
  const admin = await setupAdmin(app);
  return { app, admin };
}

async function remoteNode(
  app: Awaited<ReturnType<typeof setup>>['app'],
  admin: string,
  name = 'edge-1',
): Promise<{ id: number; token: string }> {
  const res = await call(app, 'POST', '/api/nodes', { token: admin, body: { name } });
  assert.equal(res.status, 200, res.body);
  return { id: res.json.data.node.id, token: res.json.data.token };
}

// ---- routes the console reads -----------------------------------------------------------------

test('GET /api/nodes: NodeSummary[], the master first as the local node', async (t) => {
  const { app, admin } = await setup(t);
  await remoteNode(app, admin);
  const res = await call(app, 'GET', '/api/nodes', { token: admin });
  const nodes = expectEnvelope(res, Type.Array(NodeSummary), 'GET /api/nodes');
  assert.equal(res.headers['x-total-count'], '2');
  assert.deepEqual(
    nodes.map((n: { isLocal: boolean }) => n.isLocal),
    [true, false],
  );
  expectShape(nodes[0].lastSeen, Time, 'the local node is seen (it answers)');
  assert.equal(nodes[0].status, 'online');
});

test('GET /api/nodes/:id: NodeSummary', async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': node.token }, body: {} });
  const view = expectEnvelope(
    await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin }),
    NodeSummary,
    'GET /api/nodes/:id',
  );
  expectShape(view.lastSeen, Time, 'a node seen has a time');
});

test('POST /api/nodes {name}: {token}', async (t) => {
  const { app, admin } = await setup(t);
  const created = expectEnvelope(
    await call(app, 'POST', '/api/nodes', { token: admin, body: { name: 'from-console' } }),
    CreatedNode,
    'POST /api/nodes',
  );
  const beat = await call(app, 'POST', '/api/agent/heartbeat', {
    headers: { 'x-agent-token': created.token },
    body: {},
  });
  assert.equal(beat.status, 200, "the token is the node's agent token");
});

test("PUT /api/nodes/:id with the console's edit form: NodeSummary; maxConcurrent 0 (unlimited) is kept and reaches the agent", async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  const body = { name: 'renamed', labels: ' prod, db ,prod', maxConcurrent: 0, bandwidthLimit: '10M' };
  const view = expectEnvelope(
    await call(app, 'PUT', `/api/nodes/${node.id}`, { token: admin, body }),
    NodeSummary,
    'PUT /api/nodes/:id',
  );
  assert.deepEqual([view.name, view.labels, view.maxConcurrent, view.bandwidthLimit], ['renamed', 'prod,db', 0, '10M']);
  const beat = await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': node.token }, body: {} });
  assert.equal(beat.json.data.maxConcurrent, 0);
});

test('DELETE /api/nodes/:id: the envelope; the local node is refused', async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  expectEnvelope(
    await call(app, 'DELETE', `/api/nodes/${node.id}`, { token: admin }),
    Type.Unknown(),
    'DELETE /api/nodes/:id',
  );
  assert.equal((await call(app, 'GET', `/api/nodes/${node.id}`, { token: admin })).status, 404);
  const local = (await call(app, 'GET', '/api/nodes', { token: admin })).json.data[0];
  const refused = await call(app, 'DELETE', `/api/nodes/${local.id}`, { token: admin });
  assert.equal(refused.status, 400);
  assert.equal(refused.json.code, 'NODE_DELETE_LOCAL', "BackupX's code");
});

test("POST /api/nodes/batch {names}: [{id, name}], and each id takes an installer (the console's deploy flow)", async (t) => {
  const { app, admin } = await setup(t);
  const created = expectEnvelope(
    await call(app, 'POST', '/api/nodes/batch', { token: admin, body: { names: ['web-1', ' web-2 ', ''] } }),
    Type.Array(BatchCreateResult),
    'POST /api/nodes/batch',
  );
  assert.deepEqual(
    created.map((n: { name: string }) => n.name),
    ['web-1', 'web-2'],
  );
  for (const node of created) {
    const res = await call(app, 'POST', `/api/nodes/${node.id}/install-tokens`, {
      token: admin,
      body: consoleInstallInput(),
    });
    expectEnvelope(res, InstallTokenResult, `install token for ${node.name}`);
  }
  // BackupX refuses a whole batch with a duplicate; nothing is created.
  const dup = await call(app, 'POST', '/api/nodes/batch', { token: admin, body: { names: ['web-3', 'web-1'] } });
  assert.equal(dup.json.code, 'NODE_DUPLICATE_NAME');
  assert.equal((await call(app, 'GET', '/api/nodes', { token: admin })).headers['x-total-count'], '3');
});

test('GET /api/nodes/:id/fs/list?path=: DirEntry[] (the local node, within its roots)', async (t) => {
  const root = await realpath(await tempDir(t));
  await mkdir(join(root, 'www'));
  await writeFile(join(root, 'notes.txt'), 'abc');
  const { app, admin } = await setup(t, { localFsRoots: [root] });
  const local = (await call(app, 'GET', '/api/nodes', { token: admin })).json.data[0];
  const res = await call(app, 'GET', `/api/nodes/${local.id}/fs/list`, { token: admin, query: { path: root } });
  const entries = expectEnvelope(res, Type.Array(DirEntry), 'GET fs/list');
  assert.deepEqual(
    entries.map((e: { name: string; path: string; isDir: boolean; size: number }) => [e.name, e.path, e.isDir, e.size]),
    [
      ['www', join(root, 'www'), true, 0],
      ['notes.txt', join(root, 'notes.txt'), false, 3],
    ],
  );
  // The console's picker starts at "/": it gets the way to the roots.
  expectEnvelope(
    await call(app, 'GET', `/api/nodes/${local.id}/fs/list`, { token: admin, query: { path: '/' } }),
    Type.Array(DirEntry),
    'GET fs/list /',
  );
});

test("POST /api/nodes/:id/install-tokens with the console's body: InstallTokenResult, honoured, and the console's command runs the script", async (t) => {
  const { app, admin } = await setup(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const master = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const node = await remoteNode(app, admin);
  const res = await fetch(`${master}/api/nodes/${node.id}/install-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify(consoleInstallInput({ mode: 'foreground', ttlSeconds: 300 })),
  });
  const result = expectEnvelope(
    { status: res.status, json: await res.json() },
    InstallTokenResult,
    'POST install-tokens',
  );
  const ttl = Date.parse(result.expiresAt) - Date.now();
  assert.ok(ttl > 290_000 && ttl <= 300_000, `ttlSeconds honoured (${ttl})`);
  assert.equal(result.url, `${master}/api/install/${result.installToken}`);
  assert.equal(result.fallbackUrl, `${master}/install/${result.installToken}`);
  assert.ok(Buffer.from(result.scriptBase64, 'base64').toString().includes(`MODE='foreground'`), 'mode honoured');

  // What BackupX's buildAgentInstallCommand does (web/src/pages/nodes/installCommands.ts): fetch the
  // primary URL, fall back to the other unless the marker is there, refuse without it, run it as root.
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command =
    [
      'umask 077',
      'tmp=$(mktemp)',
      `(curl -fsS ${q(result.url)} -o "$tmp" && grep -q ${q(INSTALL_MARKER)} "$tmp" || curl -fsS ${q(result.fallbackUrl)} -o "$tmp")`,
      `{ grep -q ${q(INSTALL_MARKER)} "$tmp" || { echo 'non-script content' >&2; false; }; }`,
      'sh "$tmp"',
    ].join(' && ') + '; rc=$?; rm -f "$tmp"; test $rc -eq 0';
  const root = join(await tempDir(t), 'root');
  await run('sh', ['-c', command], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', BACKPLANE_INSTALL_ROOT: root, BACKPLANE_INSTALL_NO_START: '1' },
  });
  assert.match(
    (await readFile(join(root, 'etc/backplane/agent.token'), 'utf8')).trim(),
    /^bpn_[0-9a-f]{64}$/,
    'enrolled',
  );
});

test('POST /api/nodes/:id/rotate-token: {newToken}, the old token kept for a day', async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  const rotated = expectEnvelope(
    await call(app, 'POST', `/api/nodes/${node.id}/rotate-token`, { token: admin }),
    RotatedToken,
    'rotate-token',
  );
  for (const token of [rotated.newToken, node.token]) {
    assert.equal(
      (await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': token }, body: {} })).status,
      200,
    );
  }
  const grace = Date.parse(rotated.previousTokenValidUntil) - Date.now();
  assert.ok(grace > 23.9 * 3600_000 && grace <= 24 * 3600_000, `24 h as BackupX (${grace})`);
});

test("GET /api/nodes/:id/install-script-preview with the console's params: the script as text", async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  const params = {
    mode: 'docker',
    arch: 'amd64',
    agentVersion: '0.1.0',
    downloadSrc: 'ghproxy',
    agentMasterUrl: '',
    proxyUrl: '',
    caCertFile: '',
  };
  const res = await call(app, 'GET', `/api/nodes/${node.id}/install-script-preview`, { token: admin, query: params });
  assert.equal(res.status, 200, res.body);
  assert.equal(res.headers['content-type'], 'text/x-shellscript; charset=utf-8', "BackupX's content type, no envelope");
  assert.ok(res.body.startsWith('#!/bin/sh\n') && res.body.includes(INSTALL_MARKER));
  assert.ok(
    res.body.includes("\nMODE='docker'\n") && res.body.includes("\nARCH='amd64'\n") && res.body.includes('ghproxy.com'),
    'the params are honoured',
  );
});

test('GET /install/:token and /api/install/:token: the script in plain text; /compose.yml: YAML', async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  const tokens = [];
  for (let i = 0; i < 3; i++)
    tokens.push(
      (
        await call(app, 'POST', `/api/nodes/${node.id}/install-tokens`, {
          token: admin,
          body: consoleInstallInput({ mode: 'docker' }),
        })
      ).json.data.installToken,
    );
  for (const url of [`/install/${tokens[0]}`, `/api/install/${tokens[1]}`]) {
    const res = await app.inject({ url });
    assert.equal(res.statusCode, 200, url);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.ok(
      res.body
        .split('\n')
        .slice(0, 3)
        .some((line) => line.includes(INSTALL_MARKER)),
      'the marker within `head -3`',
    );
  }
  const compose = await app.inject({ url: `/api/install/${tokens[2]}/compose.yml` });
  assert.equal(compose.statusCode, 200);
  assert.match(String(compose.headers['content-type']), /yaml/);
  assert.match(compose.body, /^services:$/m);
});

test('GET /api/v1/agent/self: AgentSelfStatus with the "status":"online" the install scripts grep for', async (t) => {
  const { app, admin } = await setup(t);
  const node = await remoteNode(app, admin);
  await call(app, 'POST', '/api/agent/heartbeat', { headers: { 'x-agent-token': node.token }, body: {} });
  const res = await call(app, 'GET', '/api/v1/agent/self', { headers: { 'x-agent-token': node.token } });
  expectEnvelope(res, AgentSelfStatus, 'agent self');
  assert.ok(res.body.includes('"status":"online"'));
});
