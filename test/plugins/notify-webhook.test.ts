import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { runNotifierContract, contractMessage, registerPlugin } from '@backplane/plugin-testkit';
import { webhookType } from '../../plugins/notify-webhook/webhook-notifier.ts';
import webhookPlugin from '../../plugins/notify-webhook/index.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { importDocSnippet } from '../helpers/doc-snippet.ts';
import { tempDir } from '../helpers/build.ts';

const SECRET = 'contract-webhook-secret-1';
const deps = { tempDir: '/tmp', log: { info() {}, warn() {}, error() {} } };

runNotifierContract('webhook', async () => {
  const receiver = await startWebhookReceiver();
  // The stand-in refuses the credential the way receivers do: a header it does not accept.
  const refusing = await startWebhookReceiver();
  refusing.status = 401;
  return {
    type: webhookType,
    config: { url: receiver.url, secret: SECRET },
    refused: { url: refusing.url, secret: SECRET, headers: { Authorization: 'Bearer wrong-token-12345' } },
    at: ({ url }) => ({ url: `${url}/hook`, secret: SECRET }),
    received: () => [...receiver.received, ...refusing.received].map((r) => r.raw),
    close: async () => {
      await receiver.stop();
      await refusing.stop();
    },
  };
});

test('webhook: the documented Node.js snippet verifies a real delivery and rejects a tampered or stale one', async (t) => {
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const { verifyBackplaneSignature } = await importDocSnippet<{
    verifyBackplaneSignature: (s: string, h: unknown, b: string, now?: number) => boolean;
  }>(join(import.meta.dirname, '../../docs/webhook-signatures.md'), 'js', await tempDir(t));
  const instance = await webhookType.create({ url: receiver.url, secret: SECRET }, deps);
  await instance.send(contractMessage());
  const [got] = await receiver.waitFor(1);
  assert.equal(verifyBackplaneSignature(SECRET, got!.headers, got!.raw), true);
  assert.equal(verifyBackplaneSignature('another-secret', got!.headers, got!.raw), false);
  assert.equal(verifyBackplaneSignature(SECRET, got!.headers, got!.raw.replace('contract', 'kontract')), false);
  const later = Number(got!.headers['x-backplane-timestamp']) + 301;
  assert.equal(
    verifyBackplaneSignature(SECRET, got!.headers, got!.raw, later),
    false,
    'a replay after 5 minutes fails',
  );
});

test("webhook: the request carries the event, BackupX's fields, custom headers and never the secret", async (t) => {
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const instance = await webhookType.create({ url: receiver.url, secret: SECRET, headers: { 'X-Team': 'ops' } }, deps);
  const message = contractMessage('abc', { event: 'backup_failed', severity: 'error' });
  await instance.send(message, { address: { kind: 'phone', value: '+15550100' } });
  const [got] = await receiver.waitFor(1);
  assert.equal(got!.headers['content-type'], 'application/json');
  assert.equal(got!.headers['x-backplane-event'], 'backup_failed');
  assert.equal(got!.headers['x-backplane-idempotency-key'], message.idempotencyKey);
  assert.equal(got!.headers['x-team'], 'ops');
  assert.ok(!got!.raw.includes(SECRET) && !JSON.stringify(got!.headers).includes(SECRET));
  assert.deepEqual(Object.keys(got!.json).sort(), [
    'body',
    'event',
    'fields',
    'idempotencyKey',
    'link',
    'phone',
    'severity',
    'timestamp',
    'title',
  ]);
  assert.equal(got!.json.phone, '+15550100');
  assert.deepEqual(got!.json.fields, message.fields);

  const unsigned = await webhookType.create({ url: receiver.url }, deps);
  await unsigned.send(contractMessage());
  const [, plain] = await receiver.waitFor(2);
  assert.equal(plain!.headers['x-backplane-signature'], undefined, 'no secret, no signature');
});

test('webhook: the schema takes http(s) URLs and safe custom headers only', () => {
  const validate = new Ajv({ strict: false }).compile(webhookType.configSchema);
  assert.ok(validate({ url: 'https://hooks.example.test/x', headers: { Authorization: 'Bearer x' } }));
  for (const bad of [
    { url: 'ftp://example.test/x' },
    { url: 'javascript:alert(1)' },
    {},
    { url: 'https://x.test', headers: { 'Bad Header': 'x' } },
    { url: 'https://x.test', headers: { 'X-Backplane-Signature': 'forged' } },
    { url: 'https://x.test', headers: { 'X-A': 'line\r\nInjected: yes' } },
    { url: 'https://x.test', extra: 1 },
  ])
    assert.equal(validate(bad), false, JSON.stringify(bad));
});

test('webhook: the plugin registers the type, which can deliver to phone numbers', async () => {
  const registered = await registerPlugin(webhookPlugin);
  assert.deepEqual([...registered.notifiers.keys()], ['webhook']);
  assert.deepEqual(webhookType.addressKinds, ['phone']);
});
