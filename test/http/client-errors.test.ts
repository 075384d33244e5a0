import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { build } from '../helpers/build.ts';

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends bytes as they are (no client library fixing them up) and reads the reply until the server closes. */
function raw(port: number, request: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    // A safety net against a server that never answers, not a timing assertion.
    socket.setTimeout(10_000, () => socket.destroy(new Error('no reply within 10 s')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no HTTP reply: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(split + 4) });
    });
    socket.end(request);
  });
}

function assertEnvelope(res: RawReply, status: number, code: string, what: string): void {
  assert.equal(res.status, status, `${what}: ${res.body.slice(0, 200)}`);
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, `${what}: JSON`);
  assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: nosniff`);
  const json = JSON.parse(res.body) as { code: string; message: string };
  assert.equal(json.code, code, what);
  assert.equal(typeof json.message, 'string', what);
  assert.deepEqual(Object.keys(json).sort(), ['code', 'message'], `${what}: only the envelope`);
}

const request = (head: string, body = '') =>
  `${head}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${body ? '' : '\r\n'}${body}`;

test("Fastify's and Node's own client errors answer in the envelope with a stable code (real server, raw sockets)", async (t) => {
  const { app } = await build(t);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;

  assertEnvelope(
    await raw(port, request(`GET /health HTTP/1.1\r\nX-Big: ${'a'.repeat(20_000)}`)),
    431,
    'HEADERS_TOO_LARGE',
    'a header over the limit',
  );
  assertEnvelope(
    await raw(port, request(`GET /api/users?x=${'a'.repeat(20_000)} HTTP/1.1`)),
    431,
    'HEADERS_TOO_LARGE',
    'a URL over the limit',
  );
  assertEnvelope(
    await raw(port, request(`PUT /api/users/${'1'.repeat(150)} HTTP/1.1`)),
    414,
    'URI_TOO_LONG',
    'a path parameter over the limit',
  );
  assertEnvelope(
    await raw(port, request('PUT /api/users/%E0%A4%A HTTP/1.1')),
    400,
    'INVALID_URL',
    'an undecodable path parameter',
  );
  assertEnvelope(await raw(port, 'GARBAGE\r\n\r\n'), 400, 'MALFORMED_REQUEST', 'not HTTP at all');
  assertEnvelope(
    await raw(
      port,
      request('POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: abc', '\r\n{}'),
    ),
    400,
    'INVALID_CONTENT_LENGTH',
    'a non-numeric Content-Length',
  );
  assertEnvelope(
    await raw(
      port,
      request(
        'POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3',
        '\r\n{}',
      ),
    ),
    400,
    'INVALID_CONTENT_LENGTH',
    'two different Content-Lengths',
  );
  assertEnvelope(
    await raw(
      port,
      request('POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 5000000', '\r\n{}'),
    ),
    413,
    'PAYLOAD_TOO_LARGE',
    'a body over the limit',
  );
  const bigBody = JSON.stringify({ username: 'a'.repeat(1_100_000), password: 'x' });
  assertEnvelope(
    await raw(
      port,
      request(
        `POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked`,
        `\r\n${bigBody.length.toString(16)}\r\n${bigBody}\r\n0\r\n\r\n`,
      ),
    ),
    413,
    'PAYLOAD_TOO_LARGE',
    'a chunked body over the limit',
  );
  assertEnvelope(
    await raw(
      port,
      request('POST /api/auth/login HTTP/1.1\r\nContent-Type: application/xml\r\nContent-Length: 4', '\r\n<x/>'),
    ),
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    'an unsupported media type',
  );
  assertEnvelope(
    await raw(
      port,
      request(
        'POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 12',
        '\r\n{"username":',
      ),
    ),
    400,
    'INVALID_JSON',
    'a body that is not JSON',
  );
  assertEnvelope(
    await raw(port, request('POST /api/auth/login HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 0')),
    400,
    'INVALID_INPUT',
    'an empty JSON body',
  );
});

test('a body shorter than its Content-Length is refused with INVALID_CONTENT_LENGTH', async (t) => {
  const { app } = await build(t);
  // inject hands the body over as it is, so the parser sees fewer bytes than announced.
  const res = await app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { 'content-type': 'application/json', 'content-length': '100' },
    payload: '{}',
  });
  assert.equal(res.statusCode, 400, res.body);
  assert.equal(res.json().code, 'INVALID_CONTENT_LENGTH');
});
