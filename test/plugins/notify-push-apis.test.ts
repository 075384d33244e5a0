import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNotifierContract, contractMessage, registerPlugin } from '@backplane/plugin-testkit';
import type { NotifierType } from '@backplane/plugin-api';
import { telegramType } from '../../plugins/notify-telegram/telegram-notifier.ts';
import { ntfyType } from '../../plugins/notify-ntfy/ntfy-notifier.ts';
import { gotifyType } from '../../plugins/notify-gotify/gotify-notifier.ts';
import { pushoverType } from '../../plugins/notify-pushover/pushover-notifier.ts';
import { matrixType, transactionId } from '../../plugins/notify-matrix/matrix-notifier.ts';
import telegramPlugin from '../../plugins/notify-telegram/index.ts';
import ntfyPlugin from '../../plugins/notify-ntfy/index.ts';
import gotifyPlugin from '../../plugins/notify-gotify/index.ts';
import pushoverPlugin from '../../plugins/notify-pushover/index.ts';
import matrixPlugin from '../../plugins/notify-matrix/index.ts';
import { startHttpStandIn, type StandInAnswer, type StandInRequest } from '../helpers/http-stand-in.ts';

/**
 * Telegram, ntfy, Gotify, Pushover and Matrix, each against a stand-in that checks the
 * credential where the service does and answers with the service's own success and error bodies.
 */

const deps = { tempDir: '/tmp', log: { info() {}, warn() {}, error() {} } };
const TOKEN = 'valid-credential-0123456789';

interface Api {
  type: NotifierType;
  /** The service's behaviour: `authorised` says whether the request carried TOKEN where the service reads it. */
  answer: (req: StandInRequest) => StandInAnswer;
  config: (url: string, token: string) => Record<string, unknown>;
}

const bearer = (req: StandInRequest) => req.headers.authorization === `Bearer ${TOKEN}`;

const APIS: Record<string, Api> = {
  telegram: {
    type: telegramType,
    answer: (req) =>
      req.path === `/bot${TOKEN}/sendMessage`
        ? { status: 200, json: { ok: true, result: { message_id: 1, chat: { id: req.json?.chat_id } } } }
        : { status: 401, json: { ok: false, error_code: 401, description: 'Unauthorized' } },
    config: (url, token) => ({ apiUrl: url, botToken: token, chatId: '-100123' }),
  },
  ntfy: {
    type: ntfyType,
    answer: (req) =>
      bearer(req)
        ? { status: 200, json: { id: 'abc', time: 1, event: 'message', topic: req.json?.topic } }
        : { status: 403, json: { code: 40301, http: 403, error: 'forbidden' } },
    config: (url, token) => ({ serverUrl: url, topic: 'backups', accessToken: token }),
  },
  gotify: {
    type: gotifyType,
    answer: (req) =>
      req.path === '/message' && req.headers['x-gotify-key'] === TOKEN
        ? { status: 200, json: { id: 1, appid: 1, message: req.json?.message } }
        : {
            status: 401,
            json: {
              error: 'Unauthorized',
              errorCode: 401,
              errorDescription: 'you need to provide a valid access token or user credentials to access this api',
            },
          },
    config: (url, token) => ({ serverUrl: url, appToken: token }),
  },
  pushover: {
    type: pushoverType,
    answer: (req) =>
      req.path === '/1/messages.json' && req.json?.token === TOKEN
        ? { status: 200, json: { status: 1, request: 'req-1' } }
        : {
            status: 400,
            json: { token: 'invalid', errors: ['application token is invalid'], status: 0, request: 'req-2' },
          },
    config: (url, token) => ({ apiUrl: url, apiToken: token, userKey: 'user-key-abcdefgh' }),
  },
  matrix: {
    type: matrixType,
    answer: (req) =>
      bearer(req)
        ? { status: 200, json: { event_id: '$event1' } }
        : { status: 401, json: { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.' } },
    config: (url, token) => ({ homeserverUrl: url, accessToken: token, roomId: '!room:example.test' }),
  },
};

for (const [name, api] of Object.entries(APIS)) {
  runNotifierContract(name, async () => {
    const standIn = await startHttpStandIn(api.answer);
    return {
      type: api.type,
      config: api.config(standIn.url, TOKEN),
      refused: api.config(standIn.url, 'refused-credential-000'),
      at: ({ url }) => api.config(url, TOKEN),
      received: () => standIn.requests.map((r) => r.raw),
      close: standIn.close,
    };
  });
}

async function capture(
  name: string,
  extra: Record<string, unknown> = {},
  message = contractMessage('shape', {
    severity: 'error',
    event: 'backup_failed',
    fields: { taskName: 'db <prod>', recordId: 7, error: null },
  }),
) {
  const api = APIS[name]!;
  const standIn = await startHttpStandIn(api.answer);
  try {
    const instance = await api.type.create({ ...api.config(standIn.url, TOKEN), ...extra }, deps);
    await instance.send(message);
    return { request: standIn.requests[0]!, message };
  } finally {
    await standIn.close();
  }
}

test('telegram: sendMessage as escaped HTML to the chat, thread and silence honoured; Bot API errors classified', async () => {
  const { request, message } = await capture('telegram', { messageThreadId: 5, disableNotification: true });
  assert.equal(request.method, 'POST');
  assert.equal(request.json.chat_id, '-100123');
  assert.equal(request.json.parse_mode, 'HTML');
  assert.equal(request.json.message_thread_id, 5);
  assert.equal(request.json.disable_notification, true);
  assert.match(request.json.text, new RegExp(`<b>${message.title}</b>`));
  assert.match(request.json.text, /<b>taskName<\/b>: db &lt;prod&gt;/);
  assert.ok(request.json.text.length <= 4096);
  for (const [answer, kind] of [
    [{ status: 400, json: { ok: false, error_code: 400, description: 'Bad Request: chat not found' } }, 'permanent'],
    [
      {
        status: 429,
        json: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 5',
          parameters: { retry_after: 5 },
        },
      },
      'transient',
    ],
  ] as const) {
    const standIn = await startHttpStandIn(() => answer);
    const instance = await telegramType.create({ apiUrl: standIn.url, botToken: TOKEN, chatId: 1 }, deps);
    await assert.rejects(
      instance.send(contractMessage()),
      (err: any) => err.kind === kind && !err.message.includes(TOKEN),
    );
    await standIn.close();
  }
});

test('ntfy: JSON publishing with priority and tags from the severity, click link, Basic auth', async () => {
  const { request } = await capture('ntfy');
  assert.equal(request.path, '/');
  assert.equal(request.json.topic, 'backups');
  assert.equal(request.json.priority, 5);
  assert.deepEqual(request.json.tags, ['rotating_light', 'backup_failed']);
  assert.equal(request.json.click, 'http://127.0.0.1/records/shape');
  const standIn = await startHttpStandIn((req) =>
    req.headers.authorization === `Basic ${Buffer.from('ops:pass-word-1').toString('base64')}`
      ? { status: 200, json: {} }
      : { status: 401, json: { code: 40101, http: 401, error: 'unauthorized' } },
  );
  const instance = await ntfyType.create(
    { serverUrl: standIn.url, topic: 't', username: 'ops', password: 'pass-word-1' },
    deps,
  );
  await instance.send(contractMessage('basic', { severity: 'success' }));
  assert.equal(standIn.requests[0]!.json.priority, 3);
  await standIn.close();
});

test('gotify: token in X-Gotify-Key (never the query string), markdown and click extras', async () => {
  const { request } = await capture('gotify');
  assert.equal(request.path, '/message');
  assert.equal(request.query.get('token'), null);
  assert.equal(request.json.priority, 8);
  assert.deepEqual(request.json.extras['client::display'], { contentType: 'text/markdown' });
  assert.deepEqual(request.json.extras['client::notification'], { click: { url: 'http://127.0.0.1/records/shape' } });
  assert.match(request.json.message, /- \*\*taskName\*\*: db <prod>/);
});

test('pushover: limits, priority and URL; a bad user key is an auth error', async () => {
  const { request } = await capture(
    'pushover',
    { device: 'phone', sound: 'siren' },
    contractMessage('long', { severity: 'error', body: 'x'.repeat(3000) }),
  );
  assert.equal(request.json.priority, 1);
  assert.equal(request.json.device, 'phone');
  assert.equal(request.json.sound, 'siren');
  assert.ok(request.json.message.length <= 1024);
  assert.equal(request.json.url_title, 'Open in Backplane');
  assert.equal(typeof request.json.timestamp, 'number');
  const standIn = await startHttpStandIn(() => ({
    status: 400,
    json: {
      user: 'invalid',
      errors: ['user identifier is not a valid user, group, or subscribed user key'],
      status: 0,
    },
  }));
  const instance = await pushoverType.create(
    { apiUrl: standIn.url, apiToken: TOKEN, userKey: 'user-key-wrong1' },
    deps,
  );
  await assert.rejects(
    instance.send(contractMessage()),
    (err: any) => err.kind === 'auth' && !err.message.includes('user-key-wrong1'),
  );
  await standIn.close();
});

test('matrix: PUT to the room with the idempotency key as transaction id; not in the room is permanent', async () => {
  const { request, message } = await capture('matrix');
  assert.equal(request.method, 'PUT');
  assert.equal(
    request.path,
    `/_matrix/client/v3/rooms/${encodeURIComponent('!room:example.test')}/send/m.room.message/${transactionId(message.idempotencyKey)}`,
  );
  assert.equal(request.json.msgtype, 'm.text');
  assert.equal(request.json.format, 'org.matrix.custom.html');
  assert.match(request.json.formatted_body, /<b>taskName<\/b>: db &lt;prod&gt;/);
  const standIn = await startHttpStandIn(() => ({
    status: 403,
    json: { errcode: 'M_FORBIDDEN', error: 'User not in room' },
  }));
  const instance = await matrixType.create({ homeserverUrl: standIn.url, accessToken: TOKEN, roomId: '!r:x' }, deps);
  await assert.rejects(instance.send(contractMessage()), (err: any) => err.kind === 'permanent');
  await standIn.close();
});

test('telegram, ntfy, gotify, pushover, matrix: the plugins register their types', async () => {
  for (const [plugin, type] of [
    [telegramPlugin, 'telegram'],
    [ntfyPlugin, 'ntfy'],
    [gotifyPlugin, 'gotify'],
    [pushoverPlugin, 'pushover'],
    [matrixPlugin, 'matrix'],
  ] as const) {
    assert.deepEqual([...(await registerPlugin(plugin)).notifiers.keys()], [type]);
  }
});
