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
const COLOUR: Record<string, string> = { error: 'Attention', warning: 'Warning', success: 'Good', info: 'Accent' };

/**
 * Microsoft Teams: a Workflows (Power Automate) webhook, or a legacy incoming-webhook connector;
 * both take a message with an Adaptive Card attachment. The URL carries its signature, so it is
 * a secret.
 */
export const teamsType: NotifierType = {
  type: 'teams',
  displayName: 'Microsoft Teams',
  description: 'Posts each event to a Teams channel as an Adaptive Card through a Workflows or incoming webhook.',
  configSchema: {
    type: 'object',
    properties: {
      webhookUrl: {
        type: 'string',
        minLength: 1,
        maxLength: 4096,
        pattern: URL_PATTERN,
        description:
          'The Workflows "post to a channel when a webhook request is received" URL, or an incoming webhook URL.',
      },
    },
    required: ['webhookUrl'],
    additionalProperties: false,
  },
  secretFields: ['webhookUrl'],
  create(config) {
    return new TeamsNotifier(config);
  },
};

/** The message body: one Adaptive Card (schema 1.4, which both webhook kinds render). */
export function teamsBody(message: NotificationMessage): Record<string, unknown> {
  const facts = shownFields(message.fields)
    .slice(0, 20)
    .map(([title, value]) => ({ title, value: truncate(value, 500) }));
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              text: truncate(message.title, 500),
              weight: 'Bolder',
              size: 'Medium',
              wrap: true,
              color: COLOUR[message.severity] ?? 'Default',
            },
            ...(message.body ? [{ type: 'TextBlock', text: truncate(message.body, 5000), wrap: true }] : []),
            ...(facts.length ? [{ type: 'FactSet', facts }] : []),
            {
              type: 'TextBlock',
              text: `${message.event} · ${message.timestamp}`,
              isSubtle: true,
              size: 'Small',
              wrap: true,
            },
          ],
          ...(message.link
            ? { actions: [{ type: 'Action.OpenUrl', title: 'Open in Backplane', url: message.link }] }
            : {}),
        },
      },
    ],
  };
}

class TeamsNotifier implements NotifierInstance {
  readonly #url: string;
  constructor(config: Record<string, unknown>) {
    this.#url = String(config.webhookUrl);
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    await deliverHttp({
      service: 'Microsoft Teams',
      url: this.#url,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(teamsBody(message)),
      signal: options.signal,
      secrets: [this.#url],
    });
  }
}
