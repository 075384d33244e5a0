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
const PRIORITY: Record<string, number> = { error: 1, warning: 0, success: -1, info: -1 };

/**
 * Pushover's Message API (`POST /1/messages.json`), with its limits: title 250, message 1024,
 * URL 512 characters. Severity picks the priority (high for failures, quiet for successes).
 */
export const pushoverType: NotifierType = {
  type: 'pushover',
  displayName: 'Pushover',
  description: 'Pushes each event to Pushover devices.',
  configSchema: {
    type: 'object',
    properties: {
      userKey: { type: 'string', minLength: 1, maxLength: 64, description: 'Your user (or group) key.' },
      apiToken: { type: 'string', minLength: 1, maxLength: 64, description: "The application's API token." },
      device: {
        type: 'string',
        maxLength: 128,
        description: 'Only these devices (comma-separated names); all when empty.',
      },
      sound: { type: 'string', maxLength: 64, description: 'Notification sound name.' },
      apiUrl: {
        type: 'string',
        maxLength: 2048,
        pattern: URL_PATTERN,
        default: 'https://api.pushover.net',
        description: 'The Pushover API (change only for a test server).',
      },
    },
    required: ['userKey', 'apiToken'],
    additionalProperties: false,
  },
  secretFields: ['userKey', 'apiToken'],
  create(config) {
    return new PushoverNotifier(config);
  },
};

/** Pushover's request body. */
export function pushoverBody(message: NotificationMessage, config: Record<string, unknown>): Record<string, unknown> {
  const fields = shownFields(message.fields).map(([k, v]) => `${k}: ${v}`);
  return {
    token: config.apiToken,
    user: config.userKey,
    title: truncate(message.title, 250),
    message: truncate([message.body, ...(fields.length ? ['', ...fields] : [])].join('\n') || message.title, 1024),
    priority: PRIORITY[message.severity] ?? 0,
    timestamp: Math.floor(Date.parse(message.timestamp) / 1000),
    ...(message.link && message.link.length <= 512 ? { url: message.link, url_title: 'Open in Backplane' } : {}),
    ...(config.device ? { device: config.device } : {}),
    ...(config.sound ? { sound: config.sound } : {}),
  };
}

class PushoverNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    await deliverHttp({
      service: 'Pushover',
      url: `${String(c.apiUrl ?? 'https://api.pushover.net').replace(/\/+$/, '')}/1/messages.json`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(pushoverBody(message, c)),
      signal: options.signal,
      secrets: [c.apiToken, c.userKey],
      // Pushover answers 400 for a bad token or user key as for a bad message: its body says which.
      classify: (status, body) => (status === 400 && /"(token|user)":"invalid"/.test(body) ? 'auth' : undefined),
    });
  }
}
