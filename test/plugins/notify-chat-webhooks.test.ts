import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runNotifierContract, contractMessage, registerPlugin } from '@backplane/plugin-testkit';
import type { NotifierType } from '@backplane/plugin-api';
import { slackType } from '../../plugins/notify-slack/slack-notifier.ts';
import { discordType } from '../../plugins/notify-discord/discord-notifier.ts';
import { teamsType } from '../../plugins/notify-teams/teams-notifier.ts';
import slackPlugin from '../../plugins/notify-slack/index.ts';
import discordPlugin from '../../plugins/notify-discord/index.ts';
import teamsPlugin from '../../plugins/notify-teams/index.ts';
import { startHttpStandIn, type StandInAnswer, type StandInRequest } from '../helpers/http-stand-in.ts';

/** Slack, Discord and Teams: incoming webhooks whose URL is the credential, each against a stand-in answering like the service. */

const deps = { tempDir: '/tmp', log: { info() {}, warn() {}, error() {} } };

interface Service {
  type: NotifierType;
  path: (token: string) => string;
  answer: (req: StandInRequest, valid: boolean) => StandInAnswer;
}

const SERVICES: Record<string, Service> = {
  // Slack: 200 "ok"; a revoked or wrong URL 403 invalid_token / 404 no_service.
  slack: {
    type: slackType,
    path: (token) => `/services/T000/B000/${token}`,
    answer: (_req, valid) => (valid ? { status: 200, text: 'ok' } : { status: 403, text: 'invalid_token' }),
  },
  // Discord with ?wait=true: 200 and the message; a wrong token 401 {"message":"Invalid Webhook Token","code":50027}.
  discord: {
    type: discordType,
    path: (token) => `/api/webhooks/123456/${token}`,
    answer: (req, valid) =>
      valid
        ? { status: 200, json: { id: '1', content: '', embeds: req.json?.embeds } }
        : { status: 401, json: { message: 'Invalid Webhook Token', code: 50027 } },
  },
  // Teams Workflows: 202 Accepted; a bad signature 401.
  teams: {
    type: teamsType,
    path: (token) => `/workflows/abc/triggers/manual/paths/invoke?sig=${token}`,
    answer: (_req, valid) =>
      valid
        ? { status: 202, text: '' }
        : {
            status: 401,
            json: { error: { code: 'DirectApiAuthorizationRequired', message: 'The request must be authenticated' } },
          },
  },
};

for (const [name, service] of Object.entries(SERVICES)) {
  const token = `${name}-valid-token-abcdef`;
  runNotifierContract(name, async () => {
    const standIn = await startHttpStandIn((req) =>
      service.answer(req, req.path.includes(token) || req.query.get('sig') === token),
    );
    return {
      type: service.type,
      config: { webhookUrl: `${standIn.url}${service.path(token)}` },
      refused: { webhookUrl: `${standIn.url}${service.path(`${name}-revoked-token-000`)}` },
      at: ({ url }) => ({ webhookUrl: `${url}${service.path(token)}` }),
      received: () => standIn.requests.map((r) => r.raw),
      close: standIn.close,
    };
  });
}

async function capture(
  service: Service,
  config: Record<string, unknown> = {},
  message = contractMessage('shape', {
    severity: 'error',
    event: 'backup_failed',
    fields: { taskName: 'nightly', recordId: 7, error: null },
  }),
) {
  const standIn = await startHttpStandIn((req) => service.answer(req, true));
  try {
    const instance = await service.type.create(
      { webhookUrl: `${standIn.url}${service.path('t0k3n-123456')}`, ...config },
      deps,
    );
    await instance.send(message);
    return { request: standIn.requests[0]!, message };
  } finally {
    await standIn.close();
  }
}

test('slack: Block Kit with a header, the body, fields, a link, and the text fallback', async () => {
  const { request, message } = await capture(SERVICES.slack!, { channel: '#ops', iconEmoji: ':floppy_disk:' });
  assert.equal(request.method, 'POST');
  assert.equal(request.headers['content-type'], 'application/json');
  assert.equal(request.json.channel, '#ops');
  assert.equal(request.json.icon_emoji, ':floppy_disk:');
  assert.match(request.json.text, /Backplane contract shape/);
  const [header, body, fields, context] = request.json.blocks;
  assert.deepEqual(header, { type: 'header', text: { type: 'plain_text', text: message.title, emoji: true } });
  assert.equal(body.text.text, message.body);
  assert.deepEqual(
    fields.fields.map((f: any) => f.text),
    ['*taskName*\nnightly', '*recordId*\n7'],
    'null fields are left out',
  );
  assert.match(
    context.elements[0].text,
    /:red_circle: backup_failed .*<http:\/\/127\.0\.0\.1\/records\/shape\|open in Backplane>/,
  );
});

test('slack: a revoked webhook (404 no_service) is an auth error, a 500 is transient', async () => {
  for (const [answer, kind] of [
    [{ status: 404, text: 'no_service' }, 'auth'],
    [{ status: 500, text: 'oops' }, 'transient'],
    [{ status: 400, text: 'invalid_payload' }, 'permanent'],
  ] as const) {
    const standIn = await startHttpStandIn(() => answer);
    const instance = await slackType.create({ webhookUrl: `${standIn.url}/services/T/B/secret-path-token` }, deps);
    await assert.rejects(
      instance.send(contractMessage()),
      (err: any) => err.kind === kind && !err.message.includes('secret-path-token'),
    );
    await standIn.close();
  }
});

test("discord: one embed within Discord's limits, coloured by severity, mentions off, ?wait=true", async () => {
  const long = contractMessage('long', {
    title: 'T'.repeat(400),
    body: 'B'.repeat(5000),
    fields: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field${i}`, 'v'.repeat(2000)])),
  });
  const { request } = await capture(SERVICES.discord!, { username: 'Backplane' }, long);
  assert.equal(request.query.get('wait'), 'true');
  assert.deepEqual(request.json.allowed_mentions, { parse: [] });
  assert.equal(request.json.username, 'Backplane');
  const [embed] = request.json.embeds;
  assert.equal(embed.title.length, 256);
  assert.ok(embed.description.length <= 4096);
  assert.ok(embed.fields.length <= 25 && embed.fields.every((f: any) => f.value.length <= 1024));
  const total =
    embed.title.length +
    embed.description.length +
    embed.fields.reduce((n: number, f: any) => n + f.name.length + f.value.length, 0);
  assert.ok(total <= 6000, `embed total ${total} is within 6000`);
  const { request: failed } = await capture(SERVICES.discord!);
  assert.equal(failed.json.embeds[0].color, 0xd32f2f);
  assert.equal(failed.json.embeds[0].url, 'http://127.0.0.1/records/shape');
});

test('teams: an Adaptive Card message with a fact set and an open-URL action', async () => {
  const { request, message } = await capture(SERVICES.teams!);
  assert.equal(request.json.type, 'message');
  const [attachment] = request.json.attachments;
  assert.equal(attachment.contentType, 'application/vnd.microsoft.card.adaptive');
  const card = attachment.content;
  assert.equal(card.type, 'AdaptiveCard');
  assert.equal(card.version, '1.4');
  assert.equal(card.body[0].text, message.title);
  assert.equal(card.body[0].color, 'Attention');
  assert.deepEqual(card.body[2], {
    type: 'FactSet',
    facts: [
      { title: 'taskName', value: 'nightly' },
      { title: 'recordId', value: '7' },
    ],
  });
  assert.deepEqual(card.actions, [{ type: 'Action.OpenUrl', title: 'Open in Backplane', url: message.link }]);
});

test('slack, discord, teams: the plugins register their types; the webhook URL is the secret', async () => {
  for (const [plugin, type] of [
    [slackPlugin, 'slack'],
    [discordPlugin, 'discord'],
    [teamsPlugin, 'teams'],
  ] as const) {
    const registered = await registerPlugin(plugin);
    assert.deepEqual([...registered.notifiers.keys()], [type]);
    assert.deepEqual(registered.notifiers.get(type)!.secretFields, ['webhookUrl']);
  }
});
