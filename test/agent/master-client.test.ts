import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRetryable, MasterClient, MasterError } from '../../agent/master-client.ts';

const TOKEN = `bpn_${'ab'.repeat(32)}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}
const seen: Seen[] = [];
let server: Server;
let base: string;
let dir: string;
const artifact = randomBytes(300_000);

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
  switch (req.url) {
    case '/api/agent/heartbeat':
      return send(res, 200, { code: 'OK', message: 'success', data: { nodeId: 7, echo: JSON.parse(body.toString()) } });
    case '/api/agent/commands/9/result':
      return send(res, 409, { code: 'AGENT_COMMAND_NOT_CLAIMED', message: 'The command is no longer claimed.' });
    case '/api/agent/tasks/1?recordId=2':
      return send(res, 403, { code: 'AGENT_COMMAND_FORBIDDEN', message: 'Not your command.' });
    case '/busy':
      return send(res, 503, { code: 'SERVICE_UNAVAILABLE', message: 'closing' });
    case '/plain-502':
      res.writeHead(502);
      return void res.end('bad gateway');
    case '/redirect':
      res.writeHead(302, { location: '/api/agent/heartbeat' });
      return void res.end();
    case '/not-enveloped':
      return send(res, 200, { hello: 'world' });
    case '/api/agent/records/3/artifacts/4':
      return send(res, 200, {
        code: 'OK',
        message: 'success',
        data: { size: body.length, checksum: createHash('sha256').update(body).digest('hex') },
      });
    case '/api/agent/restores/5/artifact':
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'x-backplane-raw-size': String(artifact.length),
      });
      return void res.end(artifact);
    case '/api/agent/restores/6/artifact':
      return send(res, 404, { code: 'RESTORE_NOT_FOUND', message: 'no such restore' });
    case '/slow':
      return; // never answers
    default:
      return send(res, 404, { code: 'NOT_FOUND', message: 'no route' });
  }
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bp-agent-client-'));
  server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

function client(options: { jsonTimeoutMs?: number } = {}): MasterClient {
  return new MasterClient({ master: `${base}/`, token: TOKEN, ...options });
}

test('post unwraps the envelope and sends X-Agent-Token and JSON', async () => {
  const c = client();
  try {
    const data = await c.post<{ nodeId: number; echo: unknown }>('/api/agent/heartbeat', { inFlight: [] });
    assert.deepEqual(data, { nodeId: 7, echo: { inFlight: [] } });
    const req = seen.findLast((s) => s.url === '/api/agent/heartbeat')!;
    assert.equal(req.headers['x-agent-token'], TOKEN);
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.method, 'POST');
  } finally {
    c.close();
  }
});

test('anonymous calls (enrollment) carry no token', async () => {
  const c = client();
  try {
    await c.post('/api/agent/heartbeat', { code: 'x' }, { anonymous: true });
    assert.equal(seen.findLast((s) => s.url === '/api/agent/heartbeat')!.headers['x-agent-token'], undefined);
  } finally {
    c.close();
  }
});

test('4xx replies throw with status and code, not retryable', async () => {
  const c = client();
  try {
    await assert.rejects(
      c.post('/api/agent/commands/9/result', { success: true }),
      (err: unknown) =>
        err instanceof MasterError &&
        err.status === 409 &&
        err.code === 'AGENT_COMMAND_NOT_CLAIMED' &&
        !isRetryable(err),
    );
    await assert.rejects(
      c.get('/api/agent/tasks/1?recordId=2'),
      (err: unknown) =>
        err instanceof MasterError && err.status === 403 && err.code === 'AGENT_COMMAND_FORBIDDEN' && !err.retryable,
    );
    assert.equal(seen.findLast((s) => s.url === '/api/agent/tasks/1?recordId=2')!.headers['x-agent-token'], TOKEN);
  } finally {
    c.close();
  }
});

test('502/503 and refused connections are retryable; redirects are not followed', async () => {
  const c = client();
  try {
    await assert.rejects(
      c.get('/busy'),
      (err: unknown) =>
        err instanceof MasterError && err.status === 503 && err.code === 'SERVICE_UNAVAILABLE' && err.retryable,
    );
    await assert.rejects(
      c.get('/plain-502'),
      (err: unknown) => err instanceof MasterError && err.status === 502 && err.code === 'HTTP_502' && err.retryable,
    );
    await assert.rejects(
      c.get('/redirect'),
      (err: unknown) =>
        err instanceof MasterError && err.status === 302 && err.code === 'REDIRECT_REFUSED' && !err.retryable,
    );
    await assert.rejects(
      c.get('/not-enveloped'),
      (err: unknown) => err instanceof MasterError && err.code === 'BAD_REPLY',
    );
  } finally {
    c.close();
  }
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const gone = new MasterClient({ master: `http://127.0.0.1:${port}`, token: TOKEN });
  try {
    await assert.rejects(
      gone.get('/api/agent/heartbeat'),
      (err: unknown) =>
        err instanceof MasterError && err.code === 'ECONNREFUSED' && err.retryable && err.status === undefined,
    );
  } finally {
    gone.close();
  }
});

test('a JSON call without an answer times out as retryable', async () => {
  const c = client({ jsonTimeoutMs: 100 });
  try {
    await assert.rejects(
      c.get('/slow'),
      (err: unknown) => err instanceof MasterError && err.code === 'TIMEOUT' && err.retryable,
    );
  } finally {
    c.close();
  }
});

test('putFile sends Content-Length, the headers and the exact bytes', async () => {
  const c = client();
  const path = join(dir, 'artifact.bin');
  const bytes = randomBytes(1024 * 1024 + 5);
  await writeFile(path, bytes);
  const sha = createHash('sha256').update(bytes).digest('hex');
  try {
    const reply = await c.putFile<{ size: number; checksum: string }>('/api/agent/records/3/artifacts/4', path, {
      'x-backplane-sha256': sha,
      'x-backplane-object-key': 'task/key',
    });
    assert.deepEqual(reply, { size: bytes.length, checksum: sha });
    const req = seen.findLast((s) => s.url === '/api/agent/records/3/artifacts/4')!;
    assert.equal(req.method, 'PUT');
    assert.equal(req.headers['content-length'], String(bytes.length));
    assert.equal(req.headers['transfer-encoding'], undefined);
    assert.equal(req.headers['content-type'], 'application/octet-stream');
    assert.equal(req.headers['x-backplane-sha256'], sha);
    assert.equal(req.headers['x-backplane-object-key'], 'task/key');
    assert.equal(req.headers['x-agent-token'], TOKEN);
    assert.ok(req.body.equals(bytes));
  } finally {
    c.close();
  }
});

test('download streams the body with its headers; an error reply throws', async () => {
  const c = client();
  try {
    const { stream, headers } = await c.download('/api/agent/restores/5/artifact');
    assert.equal(headers['x-backplane-raw-size'], String(artifact.length));
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    assert.ok(Buffer.concat(chunks).equals(artifact));
    await assert.rejects(
      c.download('/api/agent/restores/6/artifact'),
      (err: unknown) => err instanceof MasterError && err.status === 404 && err.code === 'RESTORE_NOT_FOUND',
    );
  } finally {
    c.close();
  }
});

test('with a proxy, every request goes through it', async () => {
  const through: string[] = [];
  // A forwarding proxy for plain http: it sees the absolute URL and passes the request on.
  const proxy = createServer((req, res) => {
    through.push(req.url!);
    const upstream = httpRequest(req.url!, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode!, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const client = new MasterClient({
    master: base,
    token: TOKEN,
    proxy: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
  });
  try {
    const reply = await client.post<{ nodeId: number }>('/api/agent/heartbeat', { via: 'proxy' });
    assert.equal(reply.nodeId, 7);
    assert.deepEqual(through, [`${base}/api/agent/heartbeat`]);
  } finally {
    client.close();
    proxy.closeAllConnections();
    await new Promise<void>((resolve) => proxy.close(() => resolve()));
  }
});
