import {
  deliverHttp,
  shownFields,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';
const PRIORITY: Record<string, number> = { error: 8, warning: 6, success: 4, info: 4 };

/**
 * Gotify (self-hosted): `POST /message` with the application token in `X-Gotify-Key` (a header,
 * not the `?token=` query string, which would land in proxies' access logs). Markdown body, and
 * the link as Gotify's click action.
 */
export const gotifyType: NotifierType = {
  type: 'gotify',
  displayName: 'Gotify',
  description: 'Pushes each event to a Gotify server as an application message.',
  configSchema: {
    type: 'object',
    properties: {
      serverUrl: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: URL_PATTERN,
        description: 'The Gotify server URL.',
      },
      appToken: { type: 'string', minLength: 1, maxLength: 256, description: 'The application token.' },
      priority: {
        type: 'integer',
        minimum: 0,
        maximum: 10,
        description: 'Fixed priority 0-10; by default 8 for failures, 6 for warnings, 4 otherwise.',
      },
    },
    required: ['serverUrl', 'appToken'],
    additionalProperties: false,
  },
  secretFields: ['appToken'],
  create(config) {
    return new GotifyNotifier(config);
  },
};

/** Gotify's message body. */
export function gotifyBody(message: NotificationMessage, config: Record<string, unknown>): Record<string, unknown> {
  const fields = shownFields(message.fields).map(([k, v]) => `- **${k}**: ${v}`);
  return {
    title: message.title,
    message: [
      message.body,
      ...(fields.length ? ['', ...fields] : []),
      ...(message.link ? ['', `[Open in Backplane](${message.link})`] : []),
    ].join('\n'),
    priority: typeof config.priority === 'number' ? config.priority : (PRIORITY[message.severity] ?? 4),
    extras: {
      'client::display': { contentType: 'text/markdown' },
      ...(message.link ? { 'client::notification': { click: { url: message.link } } } : {}),
    },
  };
}

class GotifyNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    await deliverHttp({
      service: 'Gotify',
      url: `${String(c.serverUrl).replace(/\/+$/, '')}/message`,
      headers: { 'content-type': 'application/json', 'x-gotify-key': String(c.appToken) },
      body: JSON.stringify(gotifyBody(message, c)),
      signal: options.signal,
      secrets: [c.appToken],
    });
  }
}
