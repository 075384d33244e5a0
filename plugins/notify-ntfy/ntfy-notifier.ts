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
const PRIORITY: Record<string, number> = { error: 5, warning: 4, success: 3, info: 3 };
const TAGS: Record<string, string> = {
  error: 'rotating_light',
  warning: 'warning',
  success: 'white_check_mark',
  info: 'information_source',
};

/**
 * ntfy (ntfy.sh or a self-hosted server): JSON publishing to the server root
 * (https://docs.ntfy.sh/publish/#publish-as-json), with an access token (Bearer) or a username
 * and password (Basic) for protected topics. Severity picks the priority and the tag.
 */
export const ntfyType: NotifierType = {
  type: 'ntfy',
  displayName: 'ntfy',
  description: 'Publishes each event to an ntfy topic (ntfy.sh or your own server).',
  configSchema: {
    type: 'object',
    properties: {
      serverUrl: {
        type: 'string',
        maxLength: 2048,
        pattern: URL_PATTERN,
        default: 'https://ntfy.sh',
        description: 'The ntfy server.',
      },
      topic: {
        type: 'string',
        minLength: 1,
        maxLength: 64,
        pattern: '^[-_A-Za-z0-9]+$',
        description: 'The topic to publish to.',
      },
      accessToken: { type: 'string', maxLength: 256, description: 'Access token (tk_...) for a protected topic.' },
      username: { type: 'string', maxLength: 128, description: 'User name for a protected topic (with password).' },
      password: { type: 'string', maxLength: 256, description: 'Password for the user name.' },
      priority: {
        type: 'integer',
        minimum: 1,
        maximum: 5,
        description: 'Fixed priority 1-5; by default 5 for failures, 4 for warnings, 3 otherwise.',
      },
    },
    required: ['topic'],
    additionalProperties: false,
  },
  secretFields: ['accessToken', 'password'],
  create(config) {
    return new NtfyNotifier(config);
  },
};

/** The JSON ntfy publishes. */
export function ntfyBody(message: NotificationMessage, config: Record<string, unknown>): Record<string, unknown> {
  const fields = shownFields(message.fields).map(([k, v]) => `${k}: ${v}`);
  return {
    topic: config.topic,
    title: truncate(message.title, 250),
    message: truncate([message.body, ...(fields.length ? ['', ...fields] : [])].join('\n'), 4000),
    priority: typeof config.priority === 'number' ? config.priority : (PRIORITY[message.severity] ?? 3),
    tags: [TAGS[message.severity] ?? 'bell', message.event],
    ...(message.link ? { click: message.link } : {}),
  };
}

class NtfyNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (c.accessToken) headers.authorization = `Bearer ${String(c.accessToken)}`;
    else if (c.username)
      headers.authorization = `Basic ${Buffer.from(`${String(c.username)}:${String(c.password ?? '')}`).toString('base64')}`;
    await deliverHttp({
      service: 'ntfy',
      url: `${String(c.serverUrl ?? 'https://ntfy.sh').replace(/\/+$/, '')}/`,
      headers,
      body: JSON.stringify(ntfyBody(message, c)),
      signal: options.signal,
      secrets: [c.accessToken, c.password, headers.authorization?.split(' ')[1]],
    });
  }
}
