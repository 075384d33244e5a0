import { test } from 'node:test';
import assert from 'node:assert/strict';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { digestDue, queueDigests } from '../../core/notifications/dispatch.ts';
import { NotificationDeliveryEntity } from '../../core/db/entities/notification.ts';

/** A daily-digest channel holds its events and receives them as one message at its time. */

test("digestDue: once a day, from the channel's time on, in the given zone", () => {
  const at = (iso: string) => new Date(iso);
  assert.equal(digestDue({ digestTime: '08:00', lastDigestAt: null }, at('2026-11-24T07:59:00Z'), 'UTC'), false);
  assert.equal(digestDue({ digestTime: '08:00', lastDigestAt: null }, at('2026-11-24T08:00:00Z'), 'UTC'), true);
  assert.equal(
    digestDue({ digestTime: '08:00', lastDigestAt: at('2026-11-24T08:00:30Z') }, at('2026-11-24T20:00:00Z'), 'UTC'),
    false,
    'already sent today',
  );
  assert.equal(
    digestDue({ digestTime: '08:00', lastDigestAt: at('2026-11-24T08:00:30Z') }, at('2026-11-25T08:01:00Z'), 'UTC'),
    true,
  );
  // 08:00 in Tokyo is 23:00 UTC the day before.
  assert.equal(digestDue({ digestTime: '08:00', lastDigestAt: null }, at('2026-11-23T23:00:00Z'), 'Asia/Tokyo'), true);
  assert.equal(digestDue({ digestTime: '08:00', lastDigestAt: null }, at('2026-11-23T22:59:00Z'), 'Asia/Tokyo'), false);
});

test('a digest channel receives nothing as it happens, then one message listing every held event', async (t) => {
  const { app } = await build(t, {
    config: { notifyRetryBaseSeconds: 0.2, storageHealthIntervalSeconds: 0, slaScanIntervalSeconds: 0 },
  });
  const admin = await setupAdmin(app);
  const digest = await startWebhookReceiver();
  const live = await startWebhookReceiver();
  t.after(() => Promise.all([digest.stop(), live.stop()]));
  const created = await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'daily',
      type: 'webhook',
      config: { url: digest.url },
      eventTypes: ['storage_unhealthy', 'node_offline'],
      digest: 'daily',
      digestTime: '00:00',
    },
  });
  assert.equal(created.status, 200, created.body);
  assert.equal(created.json.data.digest, 'daily');
  await call(app, 'POST', '/api/notifications', {
    token: admin,
    body: {
      name: 'live',
      type: 'webhook',
      config: { url: live.url },
      eventTypes: ['storage_unhealthy', 'node_offline'],
    },
  });
  const { alerts, deliveryWorker, orm } = app.diContainer.cradle;
  await deliveryWorker.settle();
  await alerts.raise({
    type: 'storage_unhealthy',
    subject: 'storage:1',
    title: 'Storage target "nas" is unhealthy',
    body: 'x',
    fields: {},
  });
  await alerts.raise({
    type: 'node_offline',
    subject: 'node:1',
    title: 'Node "edge" is offline',
    body: 'y',
    fields: {},
  });
  await deliveryWorker.settle();
  await live.waitFor(2);
  assert.equal(digest.received.length, 0, 'the digest channel waits');
  const channelId = created.json.data.id;
  const held = await orm.em.fork().find(NotificationDeliveryEntity, { channelId });
  assert.deepEqual(
    held.map((d) => d.status),
    ['held', 'held'],
  );

  // The next day, past 00:00: one digest carries both.
  const tomorrow = new Date(Date.now() + 24 * 3600_000);
  assert.equal(await queueDigests(orm.em.fork(), tomorrow, 'UTC', undefined), 1);
  // Back from tomorrow: the digest is due at the time it was queued.
  await orm.em
    .fork()
    .nativeUpdate(NotificationDeliveryEntity, { channelId, status: 'pending' }, { nextAttemptAt: new Date() });
  await deliveryWorker.settle();
  const [message] = await digest.waitFor(1);
  assert.equal(message!.json.event, 'digest');
  assert.match(message!.json.title, /2 event\(s\), 2 failure\(s\)/);
  assert.match(message!.json.body, /\[storage_unhealthy\] Storage target "nas" is unhealthy/);
  assert.match(message!.json.body, /\[node_offline\] Node "edge" is offline/);
  const after = await orm.em.fork().find(NotificationDeliveryEntity, { channelId }, { orderBy: { id: 'asc' } });
  assert.deepEqual(
    after.map((d) => d.status),
    ['digested', 'digested', 'delivered'],
  );
  assert.equal(after[0]!.mergedInto, after[2]!.id);
  assert.equal(await queueDigests(orm.em.fork(), tomorrow, 'UTC', undefined), 0, 'one digest a day');
});
