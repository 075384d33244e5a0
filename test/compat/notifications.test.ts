import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from 'typebox';
import { build, call, setupAdmin } from '../helpers/build.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { expectEnvelope, Opt, Ref, Time } from './reference-shape.ts';

// ---- BackupX's shapes (server/internal/service/notification_service.go, web/src/types/notifications.ts) ----

const Summary = Ref({
  id: Type.Integer({ minimum: 1 }),
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  onSuccess: Type.Boolean(),
  onFailure: Type.Boolean(),
  eventTypes: Type.Array(Type.String()),
  updatedAt: Time,
});
const Detail = Type.Intersect([
  Summary,
  Ref({
    config: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    maskedFields: Opt(Type.Array(Type.String())),
  }),
]);
const Success = Ref({ success: Type.Literal(true) });

test('BackupX console: notification channels of its three types round-trip with its payloads and shapes', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const receiver = await startWebhookReceiver();
  t.after(() => receiver.stop());

  // web/src/services/notifications.ts sends the whole form: NotificationPayload.
  const payloads = [
    {
      name: 'mail',
      type: 'email',
      enabled: true,
      onSuccess: false,
      onFailure: true,
      config: {
        host: '127.0.0.1',
        port: 2525,
        username: 'ops',
        password: 'smtp-password-1',
        from: 'backup@example.test',
        to: 'a@example.test,b@example.test',
      },
    },
    {
      name: 'hook',
      type: 'webhook',
      enabled: true,
      onSuccess: true,
      onFailure: true,
      config: { url: receiver.url, secret: 'hook-secret-123' },
    },
    {
      name: 'tg',
      type: 'telegram',
      enabled: false,
      onSuccess: false,
      onFailure: true,
      config: { botToken: '123456:ABC-telegram-token', chatId: '-100200300' },
    },
  ];
  const ids: number[] = [];
  for (const payload of payloads) {
    const created = expectEnvelope(
      await call(app, 'POST', '/api/notifications', { token, body: payload }),
      Detail,
      `create ${payload.type}`,
    );
    ids.push(created.id);
    assert.ok((created.maskedFields ?? []).length === 1, `${payload.type}: one secret masked`);
    for (const key of created.maskedFields) assert.equal(created.config[key], '********');
  }
  const list = expectEnvelope(await call(app, 'GET', '/api/notifications', { token }), Type.Array(Summary), 'list');
  assert.deepEqual(list.map((c: any) => c.name).sort(), ['hook', 'mail', 'tg']);
  const detail = expectEnvelope(await call(app, 'GET', `/api/notifications/${ids[1]}`, { token }), Detail, 'detail');
  // The console edits the detail and sends it back with the mask in place.
  expectEnvelope(
    await call(app, 'PUT', `/api/notifications/${ids[1]}`, {
      token,
      body: { ...payloads[1], config: detail.config, onSuccess: false },
    }),
    Detail,
    'update',
  );
  expectEnvelope(await call(app, 'POST', `/api/notifications/${ids[1]}/test`, { token }), Success, 'test saved');
  expectEnvelope(
    await call(app, 'POST', '/api/notifications/test', { token, body: payloads[1] }),
    Success,
    'test unsaved',
  );
  const [signed] = await receiver.waitFor(1);
  // BackupX's receivers read {title, body, fields}: still there, beside Backplane's fields.
  assert.equal(typeof signed!.json.title, 'string');
  assert.equal(typeof signed!.json.body, 'string');
  assert.equal(typeof signed!.json.fields, 'object');
  expectEnvelope(
    await call(app, 'DELETE', `/api/notifications/${ids[2]}`, { token }),
    Ref({ deleted: Type.Literal(true) }),
    'delete',
  );
});

test('Backplane only: the channel type catalogue and the delivery log', async (t) => {
  const { app } = await build(t);
  const token = await setupAdmin(app);
  const types = expectEnvelope(
    await call(app, 'GET', '/api/notifications/types', { token }),
    Type.Array(
      Ref({
        type: Type.String(),
        displayName: Type.String(),
        configSchema: Type.Object({}),
        secretFields: Type.Array(Type.String()),
      }),
    ),
  );
  assert.ok(types.length >= 10);
  const created = await call(app, 'POST', '/api/notifications', {
    token,
    body: { name: 'hook', type: 'webhook', config: { url: 'http://127.0.0.1:9/hook' } },
  });
  expectEnvelope(
    await call(app, 'GET', `/api/notifications/${created.json.data.id}/deliveries`, { token }),
    Type.Array(Ref({ id: Type.Integer(), status: Type.String() })),
  );
});
