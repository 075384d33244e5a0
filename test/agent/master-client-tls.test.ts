import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { tempDir } from '../helpers/build.ts';
import { MasterClient } from '../../agent/master-client.ts';

const run = promisify(execFile);

test('an https master signed by a private CA: trusted with the CA option, refused without it', async (t) => {
  const dir = await tempDir(t);
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  // A self-signed certificate for 127.0.0.1 is its own CA.
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  const pem = await readFile(cert);
  const server = createServer({ key: await readFile(key), cert: pem }, (req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ code: 'OK', message: 'success', data: { token: req.headers['x-agent-token'] } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const master = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const trusted = new MasterClient({ master, token: 'bpn_test', ca: pem });
  t.after(() => trusted.close());
  assert.deepEqual(await trusted.get('/api/v1/agent/self'), { token: 'bpn_test' });

  const untrusted = new MasterClient({ master, token: 'bpn_test' });
  t.after(() => untrusted.close());
  await assert.rejects(untrusted.get('/api/v1/agent/self'), /certificate/i);
});
