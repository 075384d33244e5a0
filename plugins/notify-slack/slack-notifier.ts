import {
  deliverHttp,
  shownFields,
  truncate,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';
const EMOJI: Record<string, string> = {
  error: ':red_circle:',
  warning: ':warning:',
  success: ':white_check_mark:',
  info: ':information_source:',
};

/**
 * Slack incoming webhooks (https://hooks.slack.com/services/...): the URL is the credential, so it
 * is a secret. The message is Block Kit (header, body, up to ten fields, a link) with `text` as
 * the notification fallback.
 */
export const slackType: NotifierType = {
  type: 'slack',
  displayName: 'Slack',
  description: 'Posts each event to a Slack channel through an incoming webhook.',
  configSchema: {
    type: 'object',
    properties: {
      webhookUrl: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: URL_PATTERN,
        description: 'The incoming webhook URL (https://hooks.slack.com/services/...).',
      },
      channel: {
        type: 'string',
        maxLength: 128,
        description: "Post to another channel than the webhook's own (legacy webhooks only).",
      },
      username: { type: 'string', maxLength: 80, description: 'Sender name shown (legacy webhooks only).' },
      iconEmoji: {
        type: 'string',
        maxLength: 64,
        pattern: '^(:[a-z0-9_+-]+:)?$',
        description: 'Sender icon such as :floppy_disk: (legacy webhooks only).',
      },
    },
    required: ['webhookUrl'],
    additionalProperties: false,
  },
  secretFields: ['webhookUrl'],
  create(config) {
    return new SlackNotifier(config);
  },
};

/** Slack's request body for a message. */
export function slackBody(message: NotificationMessage, config: Record<string, unknown>): Record<string, unknown> {
  const fields = shownFields(message.fields)
    .slice(0, 10)
    .map(([k, v]) => ({ type: 'mrkdwn', text: truncate(`*${k}*\n${v}`, 2000) }));
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(message.title, 150), emoji: true } },
    ...(message.body ? [{ type: 'section', text: { type: 'mrkdwn', text: truncate(message.body, 3000) } }] : []),
    ...(fields.length ? [{ type: 'section', fields }] : []),
    {
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: truncate(
            `${EMOJI[message.severity] ?? ''} ${message.event} · ${message.timestamp}${message.link ? ` · <${message.link}|open in Backplane>` : ''}`,
            3000,
          ),
        },
      ],
    },
  ];
  return {
    text: truncate(`${message.title}\n${message.body}`, 3000),
    blocks,
    ...(config.channel ? { channel: config.channel } : {}),
    ...(config.username ? { username: config.username } : {}),
    ...(config.iconEmoji ? { icon_emoji: config.iconEmoji } : {}),
  };
}

class SlackNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const url = String(this.#config.webhookUrl);
    await deliverHttp({
      service: 'Slack',
      url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(slackBody(message, this.#config)),
      signal: options.signal,
      secrets: [url],
      // A deleted or revoked webhook answers 404 no_service or 403 invalid_token: the credential is gone.
      classify: (status, body) =>
        /no_service|invalid_token|team_disabled/.test(body) ? 'auth' : status === 410 ? 'permanent' : undefined,
    });
  }
}
