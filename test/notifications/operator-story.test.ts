import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { startSmtpStandIn } from '../helpers/smtp-stand-in.ts';
import { importDocSnippet } from '../helpers/doc-snippet.ts';
import { createTask, diskTarget, runAndWait } from '../backup/helpers.ts';

/**
 * The "done when", through the API: a new user creates an email channel and a webhook
 * channel, runs a task that fails, receives both messages (the webhook verifies with the
 * documented snippet), sees the delivery log, stops the webhook receiver, fails again, restarts
 * the receiver and still gets the message.
 */
test('an operator is told of a failed backup by email and by a signed webhook, even across a receiver outage', async (t) => {
  const { app } = await build(t, {
    config: {
      notifyRetryBaseSeconds: 0.2,
      notifyCoalesceSeconds: 0,
      storageHealthIntervalSeconds: 0,
      slaScanIntervalSeconds: 0,
    },
  });
  const admin = await setupAdmin(app);
  const smtp = await startSmtpStandIn({ users: { alerts: 'smtp-password-123' } });
  const hook = await startWebhookReceiver();
  t.after(() => Promise.all([smtp.close(), hook.stop()]));
  const secret = 'story-webhook-secret-42';
  const { verifyBackplaneSignature } = await importDocSnippet<{
    verifyBackplaneSignature: (s: string, h: unknown, b: string) => boolean;
  }>(join(import.meta.dirname, '../../docs/webhook-signatures.md'), 'js', await tempDir(t));

  const email = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'ops mail',
      type: 'email',
      enabled: true,
      onSuccess: false,
      onFailure: true,
      config: {
        host: '127.0.0.1',
        port: smtp.port,
        username: 'alerts',
        password: 'smtp-password-123',
        from: 'backplane@example.test',
        to: 'oncall@example.test, lead@example.test',
        rejectUnauthorized: false,
      },
    },
  });
  assert.equal(email.status, 200, email.body);
  const webhook = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: { name: 'ops hook', type: 'webhook', onFailure: true, config: { url: hook.url, secret } },
  });
  assert.equal(webhook.status, 200, webhook.body);

  const src = await tempDir(t);
  const disk = await diskTarget(t, app, admin);
  const task = await createTask(app, admin, {
    name: 'nightly',
    type: 'file',
    sourcePaths: [join(src, 'gone')],
    storageTargetIds: [disk.id],
  });
  assert.equal((await runAndWait(app, admin, task.id)).status, 'failed');
  const worker = app.diContainer.cradle.deliveryWorker;
  await worker.settle();

  const [first] = await hook.waitFor(1);
  assert.equal(first!.json.event, 'backup_failed');
  assert.equal(
    verifyBackplaneSignature(secret, first!.headers, first!.raw),
    true,
    'the documented snippet verifies the delivery',
  );
  assert.equal(smtp.mails.length, 1);
  assert.deepEqual(smtp.mails[0]!.to, ['oncall@example.test', 'lead@example.test']);
  assert.match(smtp.mails[0]!.source, /^Subject: Backup failed: nightly/m);

  for (const channel of [email.json.data.id, webhook.json.data.id]) {
    const log = await call(app, 'GET', `/api/notifications/${channel}/deliveries`, { token: admin });
    assert.deepEqual(
      log.json.data.map((d: any) => [d.eventType, d.status]),
      [['backup_failed', 'delivered']],
    );
  }

  await hook.stop();
  assert.equal((await runAndWait(app, admin, task.id)).status, 'failed');
  await worker.settle();
  const waiting = await call(app, 'GET', `/api/notifications/${webhook.json.data.id}/deliveries`, {
    token: admin,
    query: { status: 'pending' },
  });
  assert.equal(waiting.json.data.length, 1, 'the second failure waits for the receiver');
  assert.equal(waiting.json.data[0].attemptLog[0].errorKind, 'transient');
  assert.equal(smtp.mails.length, 2, 'email is not held up by the webhook');

  await hook.start();
  const [, second] = await hook.waitFor(2);
  assert.equal(second!.json.event, 'backup_failed');
  assert.equal(verifyBackplaneSignature(secret, second!.headers, second!.raw), true);
  assert.notEqual(second!.json.idempotencyKey, first!.json.idempotencyKey, 'another event, another key');
});
