import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Agent } from '../../agent/agent.ts';
import { resolveToken } from '../../agent/enroll.ts';
import { createAgentLogger } from '../../agent/logger.ts';
import { MasterClient } from '../../agent/master-client.ts';
import { spoolDir } from '../../agent/spool.ts';
import { ProviderRegistry } from '../../core/engine/host/provider-registry.ts';
import type { DatabaseDriverType, NotifierType, StorageType } from '@backplane/plugin-api';

const TOKEN = `bpn_${'cd'.repeat(32)}`;

/** A stand-in master: a queue of commands and a record of every call. */
interface Call {
  method: string;
  url: string;
  body: Buffer;
  headers: IncomingMessage['headers'];
}
const calls: Call[] = [];
let queue: unknown[] = [];
let server: Server;
let base: string;
let dir: string;
let sourceDir: string;
/** What the stand-in's heartbeat says the node's maxConcurrent is. */
let slots = 2;

function ok(res: ServerResponse, data: unknown): void {
  const text = JSON.stringify({ code: 'OK', message: 'success', data });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(text);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  calls.push({ method: req.method!, url: req.url!, body, headers: req.headers });
  const url = req.url!;
  if (url === '/api/install/enroll') return ok(res, { nodeId: 1, nodeName: 'n', token: TOKEN, masterUrl: base });
  if (req.headers['x-agent-token'] !== TOKEN) {
    res.writeHead(401, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ code: 'AUTH_UNAUTHORIZED', message: 'no' }));
  }
  if (url === '/api/agent/heartbeat')
    return ok(res, {
      nodeId: 1,
      name: 'n',
      serverTime: new Date().toISOString(),
      offlineAfterSeconds: 45,
      leaseSeconds: 120,
      maxConcurrent: slots,
      bandwidthLimit: '',
      labels: [],
    });
  if (url === '/api/agent/commands/poll') return ok(res, { command: queue.shift() ?? null });
  if (/^\/api\/agent\/commands\/\d+\/result$/.test(url)) return ok(res, { id: 1, status: 'succeeded' });
  if (url === '/api/agent/tasks/11?recordId=21') {
    return ok(res, {
      recordId: 21,
      taskId: 11,
      name: 'docs',
      source: {
        type: 'file',
        sourcePaths: [sourceDir],
        excludePatterns: [],
        dbHost: '',
        dbPort: 0,
        dbUser: '',
        dbPassword: '',
        dbName: '',
        dbPath: '',
      },
      compression: 'gzip',
      encrypt: false,
      recipient: null,
      storageKey: 'docs/2026/01/01/docs-21.tar.gz',
      rawExtension: 'tar',
      targets: [{ id: 31, name: 'via master', mode: 'relay', type: 'local_disk' }],
      bandwidthLimit: '',
    });
  }
  if (url === '/api/agent/restores/41/spec' || url === '/api/agent/restores/42/spec') {
    return ok(res, {
      restoreId: Number(url.split('/')[4]),
      backupRecordId: 21,
      type: 'file',
      fileName: 'docs-21.tar.gz',
      rawSize: 10_000,
      rawExtension: 'tar',
      targetPath: join(dir, 'restored'),
      selectedPaths: [],
      database: null,
    });
  }
  if (url === '/api/agent/restores/41' || url === '/api/agent/restores/42')
    return ok(res, { accepted: true, status: 'running' });
  if (url === '/api/agent/restores/41/artifact') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-backplane-raw-size': '10000' });
    return void res.write(Buffer.alloc(100)); // and never more: the agent is stopped meanwhile
  }
  if (url === '/api/agent/restores/42/artifact') {
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-backplane-raw-size': '10000' });
    return void res.end(Buffer.alloc(100)); // ends short: a failed check on the master's side
  }
  if (url === '/api/agent/records/21') return ok(res, { accepted: true, status: 'running' });
  if (url === '/api/agent/records/21/artifacts/31')
    return ok(res, { targetId: 31, size: body.length, checksum: createHash('sha256').update(body).digest('hex') });
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ code: 'NOT_FOUND', message: url }));
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bp-agent-loop-'));
  sourceDir = join(dir, 'source');
  await mkdir(sourceDir);
  await writeFile(join(sourceDir, 'a.txt'), 'alpha\n'.repeat(1000));
  await writeFile(join(sourceDir, 'b.txt'), 'beta');
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function registries() {
  return {
    storageTypes: new ProviderRegistry<StorageType>('storage'),
    notifierTypes: new ProviderRegistry<NotifierType>('notifier'),
    databaseDrivers: new ProviderRegistry<DatabaseDriverType>('database'),
  };
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('enrollment writes the token file with mode 0600; an existing token wins over the code', async () => {
  const tokenFile = join(dir, 'etc', 'agent.token');
  const makeClient = (token: string) => new MasterClient({ master: base, token });
  const first = await resolveToken(
    {
      master: base,
      tokenFile,
      enrollCode: 'one-time',
      tempDir: dir,
      heartbeatSeconds: 1,
      pollSeconds: 1,
      stopGraceSeconds: 1,
      plugins: [],
      logLevel: 'info',
    },
    makeClient,
  );
  assert.deepEqual(first, { token: TOKEN, origin: 'enrollment' });
  assert.equal((await readFile(tokenFile, 'utf8')).trim(), TOKEN);
  assert.equal((await stat(tokenFile)).mode & 0o777, 0o600);
  const enrollCalls = calls.filter((c) => c.url === '/api/install/enroll');
  assert.equal(enrollCalls.length, 1);
  assert.deepEqual(JSON.parse(enrollCalls[0]!.body.toString()), { code: 'one-time' });
  assert.equal(enrollCalls[0]!.headers['x-agent-token'], undefined);
  const second = await resolveToken(
    {
      master: base,
      tokenFile,
      enrollCode: 'one-time',
      tempDir: dir,
      heartbeatSeconds: 1,
      pollSeconds: 1,
      stopGraceSeconds: 1,
      plugins: [],
      logLevel: 'info',
    },
    makeClient,
  );
  assert.equal(second.origin, 'token-file');
  assert.equal(calls.filter((c) => c.url === '/api/install/enroll').length, 1);
});

test('heartbeat, claims, list_dir, unknown type and a relay backup; stop exits cleanly', async () => {
  const tempDir = join(dir, 'agent-tmp');
  await mkdir(spoolDir(tempDir), { recursive: true });
  await writeFile(join(spoolDir(tempDir), 'stale.spool'), 'left over');
  queue = [
    { id: 1, type: 'list_dir', payload: { path: sourceDir }, attempt: 1, leaseSeconds: 120 },
    { id: 2, type: 'self_destruct', payload: {}, attempt: 1, leaseSeconds: 120 },
    { id: 3, type: 'run_task', payload: { taskId: 11, recordId: 21 }, attempt: 1, leaseSeconds: 120 },
  ];
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const client = new MasterClient({ master: base, token: TOKEN });
  const agent = new Agent({
    client,
    registries: registries(),
    log: createAgentLogger('info', sink),
    tempDir,
    heartbeatSeconds: 1,
    pollSeconds: 1,
    stopGraceSeconds: 5,
  });
  const running = agent.run();
  const results = () => calls.filter((c) => /\/result$/.test(c.url));
  try {
    await until(() => results().length === 3);
  } finally {
    agent.stop();
    await running;
    client.close();
  }
  const first = calls.find((c) => c.url === '/api/agent/heartbeat')!;
  assert.deepEqual(JSON.parse(first.body.toString()).inFlight, []);
  assert.equal(JSON.parse(first.body.toString()).starting, true, 'the first heartbeat settles what a predecessor held');
  assert.equal(JSON.parse(first.body.toString()).agentVersion.length > 0, true);

  const byId = new Map(results().map((c) => [c.url.split('/')[4], JSON.parse(c.body.toString())]));
  const listing = byId.get('1');
  assert.equal(listing.success, true);
  assert.deepEqual(
    listing.result.entries.map((e: { name: string }) => e.name),
    ['a.txt', 'b.txt'],
  );
  assert.deepEqual(byId.get('2'), { success: false, error: 'unknown command type "self_destruct"' });
  assert.deepEqual(byId.get('3'), { success: true, result: { recordId: 21 } });

  const updates = calls.filter((c) => c.url === '/api/agent/records/21').map((c) => JSON.parse(c.body.toString()));
  assert.equal(updates[0].status, 'running');
  const final = updates.at(-1);
  assert.equal(final.status, 'success');
  assert.deepEqual(final.targets, []);
  const manifest = updates.flatMap((u) => u.manifest ?? []);
  assert.deepEqual(
    manifest
      .map((m: { path: string }) => m.path)
      .sort()
      .slice(-2)
      .map((p: string) => p.split('/').at(-1)),
    ['a.txt', 'b.txt'],
  );
  assert.ok(manifest.every((m: { mtime: string }) => !Number.isNaN(Date.parse(m.mtime))));

  const put = calls.find((c) => c.url === '/api/agent/records/21/artifacts/31')!;
  assert.equal(put.headers['content-length'], String(final.fileSize));
  assert.equal(put.headers['x-backplane-sha256'], final.checksum);
  assert.equal(createHash('sha256').update(put.body).digest('hex'), final.checksum);
  assert.equal(put.headers['x-backplane-object-key'], 'docs/2026/01/01/docs-21.tar.gz');

  assert.deepEqual(await readdir(spoolDir(tempDir)), [], 'spools are removed at start and after each command');
  const log = lines.join('');
  assert.ok(!log.includes(TOKEN), 'the token never reaches the log');
  assert.match(log, /command started/);
  assert.match(log, /command finished/);
});

test('a short artifact fails the restore; a stop past the grace period aborts running work as "the agent was stopped"', async () => {
  const tempDir = join(dir, 'agent-tmp-2');
  queue = [
    { id: 5, type: 'restore_record', payload: { restoreId: 42 }, attempt: 1, leaseSeconds: 120 },
    { id: 4, type: 'restore_record', payload: { restoreId: 41 }, attempt: 1, leaseSeconds: 120 },
  ];
  const client = new MasterClient({ master: base, token: TOKEN });
  const agent = new Agent({
    client,
    registries: registries(),
    log: createAgentLogger('silent'),
    tempDir,
    heartbeatSeconds: 1,
    pollSeconds: 1,
    stopGraceSeconds: 1,
  });
  const running = agent.run();
  const resultOf = (id: number) => calls.find((c) => c.url === `/api/agent/commands/${id}/result`);
  try {
    await until(() => resultOf(5) !== undefined && calls.some((c) => c.url === '/api/agent/restores/41/artifact'));
  } finally {
    agent.stop();
    await running;
    client.close();
  }
  assert.deepEqual(JSON.parse(resultOf(5)!.body.toString()), {
    success: false,
    error: 'the artifact arrived incomplete: 100 of 10000 bytes',
    result: { restoreId: 42 },
  });
  assert.deepEqual(JSON.parse(resultOf(4)!.body.toString()), {
    success: false,
    error: 'the agent was stopped',
    result: { restoreId: 41 },
  });
  const final = calls
    .filter((c) => c.url === '/api/agent/restores/41')
    .map((c) => JSON.parse(c.body.toString()))
    .at(-1);
  assert.equal(final.status, 'failed');
  assert.equal(final.errorMessage, 'the agent was stopped');
  assert.deepEqual(await readdir(spoolDir(tempDir)), []);
});

test('maxConcurrent 0 is unlimited: the agent claims every command while all of them run', async () => {
  const tempDir = join(dir, 'agent-tmp-3');
  slots = 0;
  // Three restores whose artifacts never finish arriving: each holds its slot until the stop.
  queue = [61, 62, 63].map((id) => ({
    id,
    type: 'restore_record',
    payload: { restoreId: 41 },
    attempt: 1,
    leaseSeconds: 120,
  }));
  const client = new MasterClient({ master: base, token: TOKEN });
  const agent = new Agent({
    client,
    registries: registries(),
    log: createAgentLogger('silent'),
    tempDir,
    heartbeatSeconds: 1,
    pollSeconds: 1,
    stopGraceSeconds: 0,
  });
  const running = agent.run();
  try {
    await until(() => agent.inFlight.length === 3);
  } finally {
    slots = 2;
    agent.stop();
    await running;
    client.close();
  }
  assert.deepEqual(queue, [], 'all three claimed');
});
