import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { build, call, setupAdmin, tempDir } from '../helpers/build.ts';
import { startWebhookReceiver, type WebhookReceiver, type Received } from '../helpers/webhook-receiver.ts';
import { createTask, diskTarget, runAndWait } from '../backup/helpers.ts';
import { NotificationDeliveryEntity, NotificationEventEntity } from '../../core/db/entities/notification.ts';
import type { Config } from '../../core/config/config.ts';

/**
 * Alerts reach people: backup outcomes go through the outbox to subscribed channels, with
 * retries while a receiver is down, across a restart, with alertOnConsecutiveFails, recoveries,
 * coalescing and the kill switch; a slow channel delays nobody else.
 */

const SECRET = 'delivery-secret-abcdef123456';
/** Fast retries, no coalescing unless a test asks for it. */
const FAST: Partial<Config> = {
  notifyRetryBaseSeconds: 0.2,
  notifyCoalesceSeconds: 0,
  notifyTimeoutSeconds: 2,
  storageHealthIntervalSeconds: 0,
  slaScanIntervalSeconds: 0,
};

async function setup(t: TestContext, config: Partial<Config> = {}, dataDir?: string) {
  const built = await build(t, { config: { ...FAST, ...config }, ...(dataDir ? { dataDir } : {}) });
  const admin = await setupAdmin(built.app);
  const src = await tempDir(t);
  await writeFile(join(src, 'data.txt'), 'payload');
  const disk = await diskTarget(t, built.app, admin);
  return { ...built, admin, src, disk };
}

async function hook(
  app: FastifyInstance,
  token: string,
  receiver: WebhookReceiver,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const res = await call(app, 'POST', '/api/notifications', {
    token,
    body: {
      name: `hook-${receiver.port}-${Math.random()}`,
      type: 'webhook',
      config: { url: receiver.url, secret: SECRET },
      ...extra,
    },
  });
  assert.equal(res.status, 200, res.body);
  return res.json.data.id;
}

/** A task whose only source path does not exist: every run fails. */
async function failingTask(
  app: FastifyInstance,
  token: string,
  src: string,
  diskId: number,
  extra: Record<string, unknown> = {},
) {
  return createTask(app, token, {
    name: `fails-${Math.random()}`,
    type: 'file',
    sourcePaths: [join(src, 'missing')],
    storageTargetIds: [diskId],
    ...extra,
  });
}

function verified(r: Received): boolean {
  const timestamp = String(r.headers['x-backplane-timestamp']);
  const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${r.raw}`).digest('hex')}`;
  return r.headers['x-backplane-signature'] === expected;
}

async function deliveries(app: FastifyInstance, channelId: number) {
  return app.diContainer.cradle.orm.em
    .fork()
    .find(NotificationDeliveryEntity, { channelId }, { orderBy: { id: 'asc' } });
}

test('a failed backup reaches a subscribed webhook, signed, with a link and an idempotency key, and shows in the delivery log', async (t) => {
  const { app, admin, src, disk } = await setup(t, { externalUrl: 'https://backup.example.test' });
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const channelId = await hook(app, admin, receiver);
  const task = await failingTask(app, admin, src, disk.id);
  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'failed');
  await app.diContainer.cradle.deliveryWorker.settle();
  const [got] = await receiver.waitFor(1);
  assert.ok(verified(got!), 'the HMAC signature verifies');
  assert.equal(got!.json.event, 'backup_failed');
  assert.equal(got!.json.severity, 'error');
  assert.equal(got!.json.fields.taskName, task.name);
  assert.equal(got!.json.fields.recordId, record.id);
  assert.equal(got!.json.link, `https://backup.example.test/api/backup/records/${record.id}`);
  assert.match(got!.json.idempotencyKey, /^backplane-\d+-\d+$/);

  const log = await call(app, 'GET', `/api/notifications/${channelId}/deliveries`, { token: admin });
  assert.equal(log.status, 200, log.body);
  assert.equal(log.json.data.length, 1);
  const entry = log.json.data[0];
  assert.equal(entry.eventType, 'backup_failed');
  assert.equal(entry.status, 'delivered');
  assert.equal(entry.attemptLog.length, 1);
  assert.equal(entry.attemptLog[0].outcome, 'delivered');
  assert.equal(typeof entry.attemptLog[0].durationMs, 'number');

  const metrics = await app.inject({ method: 'GET', url: '/metrics' });
  assert.match(metrics.body, /backplane_notification_deliveries_total\{type="webhook",outcome="delivered"\} 1/);
  assert.match(metrics.body, /backplane_notification_outbox_depth 0/);
});

test('a receiver that is down gets the message once it is back, with the same idempotency key; each attempt is logged', async (t) => {
  const { app, admin, src, disk } = await setup(t);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const channelId = await hook(app, admin, receiver);
  const task = await failingTask(app, admin, src, disk.id);
  await receiver.stop();
  await runAndWait(app, admin, task.id);
  await app.diContainer.cradle.deliveryWorker.settle();
  const [pending] = await deliveries(app, channelId);
  assert.equal(pending!.status, 'pending', 'a transient failure is retried');
  assert.ok(pending!.attempts >= 1);
  assert.match(pending!.lastError, /could not be reached/);

  await receiver.start();
  const [got] = await receiver.waitFor(1);
  assert.equal(got!.json.event, 'backup_failed');
  for (let i = 0; i < 100 && (await deliveries(app, channelId))[0]!.status !== 'delivered'; i++)
    await new Promise((r) => setTimeout(r, 20));
  const log = (await call(app, 'GET', `/api/notifications/${channelId}/deliveries`, { token: admin })).json.data[0];
  assert.equal(log.status, 'delivered');
  assert.ok(log.attemptLog.length >= 2);
  assert.deepEqual(log.attemptLog.map((a: any) => a.outcome).slice(-1), ['delivered']);
  assert.ok(log.attemptLog.slice(0, -1).every((a: any) => a.outcome === 'failed' && a.errorKind === 'transient'));
});

test('a refused credential is not retried; the failure is in the log', async (t) => {
  const { app, admin, src, disk } = await setup(t);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  receiver.status = 401;
  const channelId = await hook(app, admin, receiver);
  await runAndWait(app, admin, (await failingTask(app, admin, src, disk.id)).id);
  await app.diContainer.cradle.deliveryWorker.settle();
  const [delivery] = await deliveries(app, channelId);
  assert.equal(delivery!.status, 'failed');
  assert.equal(delivery!.attempts, 1);
  assert.equal(receiver.received.length, 1);
});

test('outbox events survive a restart: what was not sent before the master stopped is sent once after', async (t) => {
  const dataDir = await tempDir(t);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const first = await setup(t, {}, dataDir);
  const channelId = await hook(first.app, first.admin, receiver);
  // An outcome stored with its alert, the worker stopped before it could send: as a crash would leave it.
  await first.app.diContainer.cradle.deliveryWorker.stop();
  await first.app.diContainer.cradle.alerts.raise({
    type: 'backup_failed',
    subject: 'task:1',
    title: 'Backup failed: left behind',
    body: 'x',
    fields: { taskName: 'left behind' },
  });
  // And one claimed for sending when the master died.
  const em = first.app.diContainer.cradle.orm.em.fork();
  const event = em.create(NotificationEventEntity, {
    type: 'backup_failed',
    severity: 'error',
    subject: 'task:2',
    title: 'Backup failed: mid-send',
    body: 'y',
    fields: '{}',
    linkPath: '',
    occurredAt: new Date(),
    dispatchedAt: new Date(),
  });
  await em.flush();
  em.create(NotificationDeliveryEntity, {
    eventId: event.id,
    channelId,
    eventType: 'backup_failed',
    subject: 'task:2',
    status: 'sending',
    attempts: 1,
    nextAttemptAt: null,
    lastError: '',
    coalescedCount: 0,
    mergedInto: null,
    deliveredAt: null,
  });
  await em.flush();
  await first.app.close();
  assert.equal(receiver.received.length, 0);

  const { app } = await build(t, { config: FAST, dataDir });
  await app.diContainer.cradle.deliveryWorker.settle();
  const got = await receiver.waitFor(2);
  assert.deepEqual(got.map((r) => r.json.title).sort(), ['Backup failed: left behind', 'Backup failed: mid-send']);
  await app.diContainer.cradle.deliveryWorker.settle();
  assert.equal(receiver.received.length, 2, 'each is sent exactly once');
  assert.ok((await deliveries(app, channelId)).every((d) => d.status === 'delivered'));
});

test('alertOnConsecutiveFails holds back failures until the streak reaches it; the first success after is a recovery', async (t) => {
  const { app, admin, src, disk } = await setup(t);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  await hook(app, admin, receiver, { onSuccess: false, onFailure: true });
  const task = await failingTask(app, admin, src, disk.id, { alertOnConsecutiveFails: 2 });
  const worker = app.diContainer.cradle.deliveryWorker;
  await runAndWait(app, admin, task.id);
  await worker.settle();
  assert.equal(receiver.received.length, 0, 'one failure of two is not news yet');
  await runAndWait(app, admin, task.id);
  await worker.settle();
  await receiver.waitFor(1);
  assert.equal(receiver.received[0]!.json.event, 'backup_failed');
  assert.equal(receiver.received[0]!.json.fields.consecutiveFailures, 2);

  const update = await call(app, 'PUT', `/api/backup/tasks/${task.id}`, { token: admin, body: { sourcePaths: [src] } });
  assert.equal(update.status, 200, update.body);
  assert.equal((await runAndWait(app, admin, task.id)).status, 'success');
  await worker.settle();
  await receiver.waitFor(2);
  assert.equal(receiver.received[1]!.json.event, 'backup_recovered');
  assert.equal(receiver.received[1]!.json.fields.previousFailures, 2);
  assert.equal((await runAndWait(app, admin, task.id)).status, 'success');
  await worker.settle();
  assert.equal(receiver.received.length, 2, 'an ordinary success goes to onSuccess channels only');
});

test('subscriptions: eventTypes picks exactly those events; empty follows onSuccess/onFailure; the kill switch mutes backup results', async (t) => {
  const { app, admin, src, disk } = await setup(t);
  const successes = await startWebhookReceiver();
  const failures = await startWebhookReceiver();
  t.after(() => Promise.all([successes.stop(), failures.stop()]));
  await hook(app, admin, successes, { eventTypes: ['backup_success'] });
  await hook(app, admin, failures, { onSuccess: false, onFailure: true });
  const good = await createTask(app, admin, {
    name: 'good',
    type: 'file',
    sourcePaths: [src],
    storageTargetIds: [disk.id],
  });
  const bad = await failingTask(app, admin, src, disk.id);
  const worker = app.diContainer.cradle.deliveryWorker;
  await runAndWait(app, admin, good.id);
  await runAndWait(app, admin, bad.id);
  await worker.settle();
  assert.deepEqual(
    successes.received.map((r) => r.json.event),
    ['backup_success'],
  );
  assert.deepEqual(
    failures.received.map((r) => r.json.event),
    ['backup_failed'],
  );

  assert.equal(
    (await call(app, 'PUT', '/api/settings', { token: admin, body: { backup_notification_enabled: 'false' } })).status,
    200,
  );
  await runAndWait(app, admin, bad.id);
  await worker.settle();
  assert.equal(failures.received.length, 1, 'backup_notification_enabled=false mutes backup results');
});

test('the same event for the same subject within the window is coalesced into the first message', async (t) => {
  const { app, admin, src, disk } = await setup(t, { notifyCoalesceSeconds: 3600 });
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  const channelId = await hook(app, admin, receiver);
  const task = await failingTask(app, admin, src, disk.id);
  const worker = app.diContainer.cradle.deliveryWorker;
  await runAndWait(app, admin, task.id);
  await worker.settle();
  await runAndWait(app, admin, task.id);
  await worker.settle();
  assert.equal(receiver.received.length, 1);
  const rows = await deliveries(app, channelId);
  assert.deepEqual(
    rows.map((d) => d.status),
    ['delivered', 'coalesced'],
  );
  assert.equal(rows[0]!.coalescedCount, 1);
  assert.equal(rows[1]!.mergedInto, rows[0]!.id);
});

test('a channel that hangs delays neither the backup nor another channel', async (t) => {
  const { app, admin, src, disk } = await setup(t, { notifyTimeoutSeconds: 30 });
  const slow = await startWebhookReceiver();
  const fast = await startWebhookReceiver();
  t.after(() => Promise.all([slow.stop(), fast.stop()]));
  slow.hang = true;
  const slowId = await hook(app, admin, slow);
  await hook(app, admin, fast);
  const task = await failingTask(app, admin, src, disk.id);
  const record = await runAndWait(app, admin, task.id);
  assert.equal(record.status, 'failed', 'the run settled while a channel hangs');
  await fast.waitFor(1);
  await slow.waitFor(1);
  const [stuck] = await deliveries(app, slowId);
  assert.equal(stuck!.status, 'sending', 'the slow channel is still waiting for its receiver');
  await slow.stop();
});

test('sendTo: a one-time code goes to an address through a channel type that can reach it', async (t) => {
  const { app, admin } = await setup(t);
  const sender = app.diContainer.cradle.notificationSender;
  const message = {
    event: 'login_otp',
    severity: 'info' as const,
    title: 'Your login code',
    body: 'Code: 123456',
    fields: { code: '123456', purpose: 'login_otp' },
    timestamp: new Date().toISOString(),
    idempotencyKey: 'otp-1',
  };
  await assert.rejects(sender.sendTo({ kind: 'phone', value: '+15550100' }, message), {
    code: 'NOTIFICATION_NO_CHANNEL',
  });
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());
  await hook(app, admin, receiver, { enabled: true });
  const outcome = await sender.sendTo({ kind: 'phone', value: '+15550100' }, message);
  assert.equal(outcome.ok, true);
  const [got] = await receiver.waitFor(1);
  assert.equal(got!.json.phone, '+15550100');
  assert.equal(got!.json.fields.code, '123456');
  assert.equal(got!.json.fields.purpose, 'login_otp');
});
