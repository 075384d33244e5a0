import {
  deliverHttp,
  SEVERITY_COLOURS,
  shownFields,
  truncate,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';
/** Discord's limits for one embed (https://discord.com/developers/docs/resources/message#embed-object-embed-limits). */
const LIMITS = { title: 256, description: 4096, fields: 25, name: 256, value: 1024, total: 6000 };

/**
 * Discord webhooks (https://discord.com/api/webhooks/<id>/<token>): the URL holds the token, so
 * it is a secret. One embed per message, coloured by severity; `?wait=true` makes Discord answer
 * with the result instead of 204, so a refusal is seen. Mentions are disabled.
 */
export const discordType: NotifierType = {
  type: 'discord',
  displayName: 'Discord',
  description: 'Posts each event to a Discord channel through a webhook.',
  configSchema: {
    type: 'object',
    properties: {
      webhookUrl: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: URL_PATTERN,
        description: 'The webhook URL (https://discord.com/api/webhooks/<id>/<token>).',
      },
      username: { type: 'string', maxLength: 80, description: "Sender name shown instead of the webhook's." },
      avatarUrl: { type: 'string', maxLength: 2048, pattern: URL_PATTERN, description: 'Sender avatar image URL.' },
    },
    required: ['webhookUrl'],
    additionalProperties: false,
  },
  secretFields: ['webhookUrl'],
  create(config) {
    return new DiscordNotifier(config);
  },
};

/** Discord's request body for a message, within its embed limits. */
export function discordBody(message: NotificationMessage, config: Record<string, unknown>): Record<string, unknown> {
  const title = truncate(message.title, LIMITS.title);
  let budget = LIMITS.total - title.length;
  const description = truncate(message.body, Math.min(LIMITS.description, budget));
  budget -= description.length;
  const fields: Array<{ name: string; value: string; inline: boolean }> = [];
  for (const [k, v] of shownFields(message.fields).slice(0, LIMITS.fields)) {
    const field = { name: truncate(k, LIMITS.name), value: truncate(v, LIMITS.value), inline: true };
    if (field.name.length + field.value.length > budget) break;
    budget -= field.name.length + field.value.length;
    fields.push(field);
  }
  return {
    ...(config.username ? { username: config.username } : {}),
    ...(config.avatarUrl ? { avatar_url: config.avatarUrl } : {}),
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description,
        ...(message.link ? { url: message.link } : {}),
        color: Number.parseInt(SEVERITY_COLOURS[message.severity].slice(1), 16),
        timestamp: message.timestamp,
        fields,
        footer: { text: `Backplane · ${message.event}` },
      },
    ],
  };
}

class DiscordNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const url = new URL(String(this.#config.webhookUrl));
    url.searchParams.set('wait', 'true');
    await deliverHttp({
      service: 'Discord',
      url: url.href,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(discordBody(message, this.#config)),
      signal: options.signal,
      secrets: [String(this.#config.webhookUrl), url.href, url.pathname.split('/').pop()],
      // 404 Unknown Webhook (code 10015): the webhook was deleted, its URL is a dead credential.
      classify: (status) => (status === 404 ? 'auth' : undefined),
    });
  }
}
