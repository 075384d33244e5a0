import { createHmac } from 'node:crypto';
import {
  deliverHttp,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

/** Headers Backplane sets itself; a channel's custom headers may not replace them. */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'host',
  'x-backplane-event',
  'x-backplane-idempotency-key',
  'x-backplane-timestamp',
  'x-backplane-signature',
]);
/** A pattern matching `word` in any letter case (JSON Schema patterns take no flags). */
const anyCase = (word: string) =>
  [...word]
    .map((c) => (/[a-z]/.test(c) ? `[${c}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
const RESERVED_PATTERN = `^(${[...RESERVED].map(anyCase).join('|')})$`;
/** RFC 9110 field-name token. */
const TOKEN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/**
 * A JSON POST to any URL: the generic escape hatch (chat bridges, SMS gateways, ticket systems).
 * Signed with HMAC-SHA256 over "<timestamp>.<body>" when a secret is set; the secret itself
 * never travels, not even as a header. docs/webhook-signatures.md shows how to verify.
 */
export const webhookType: NotifierType = {
  type: 'webhook',
  displayName: 'Webhook',
  description: 'POSTs each event as JSON to a URL, signed with HMAC-SHA256 when a secret is set.',
  configSchema: {
    type: 'object',
    properties: {
      url: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
        description: 'The http or https URL that receives the POST.',
      },
      secret: {
        type: 'string',
        maxLength: 512,
        description: 'Signs each delivery: X-Backplane-Signature is sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">.',
      },
      headers: {
        type: 'object',
        description: 'Extra request headers (name to value), e.g. an Authorization header your receiver expects.',
        maxProperties: 32,
        propertyNames: { pattern: TOKEN, maxLength: 128, not: { pattern: RESERVED_PATTERN } },
        additionalProperties: { type: 'string', maxLength: 4096, pattern: '^[^\\r\\n]*$' },
      },
    },
    required: ['url'],
    additionalProperties: false,
  },
  secretFields: ['secret'],
  addressKinds: ['phone'],
  create(config) {
    return new WebhookNotifier(config);
  },
};

/** The JSON body: `{title, body, fields}` and the event's own fields beside them. */
export function webhookBody(message: NotificationMessage, options: SendOptions = {}): string {
  return JSON.stringify({
    event: message.event,
    severity: message.severity,
    title: message.title,
    body: message.body,
    fields: message.fields,
    timestamp: message.timestamp,
    link: message.link ?? null,
    idempotencyKey: message.idempotencyKey,
    // An SMS gateway behind the webhook reads the number here (one-time login codes).
    ...(options.address?.kind === 'phone' ? { phone: options.address.value } : {}),
  });
}

/** `sha256=<hex>` over `<timestamp>.<body>`. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

class WebhookNotifier implements NotifierInstance {
  readonly #url: string;
  readonly #secret: string;
  readonly #headers: Record<string, string>;

  constructor(config: Record<string, unknown>) {
    this.#url = String(config.url ?? '');
    this.#secret = typeof config.secret === 'string' ? config.secret : '';
    this.#headers = (config.headers && typeof config.headers === 'object' ? config.headers : {}) as Record<
      string,
      string
    >;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const body = webhookBody(message, options);
    const headers: Record<string, string> = {
      ...this.#headers,
      'content-type': 'application/json',
      'x-backplane-event': message.event,
      'x-backplane-idempotency-key': message.idempotencyKey,
    };
    if (this.#secret) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      headers['x-backplane-timestamp'] = timestamp;
      headers['x-backplane-signature'] = signature(this.#secret, timestamp, body);
    }
    // Custom header values and a password in the URL are credentials too.
    const secrets = [this.#secret, ...Object.values(this.#headers), urlPassword(this.#url)];
    await deliverHttp({
      service: 'The webhook receiver',
      url: this.#url,
      headers,
      body,
      signal: options.signal,
      secrets,
    });
  }
}

function urlPassword(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}
