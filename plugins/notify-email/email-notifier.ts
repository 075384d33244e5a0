import {
  ProviderError,
  redactSecrets,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';
import { htmlBody, textBody } from './email-body.ts';
import { smtpError } from './smtp-errors.ts';

/** How long each SMTP phase may take when core's signal does not end it first. */
const PHASE_TIMEOUT_MS = 15_000;

/**
 * Email over SMTP with nodemailer. Fields `host`, `port`, `username`, `password`, `from`, `to`
 * (a comma list) and `security`: `auto` (implicit TLS on port 465, otherwise STARTTLS when the
 * server offers it), `tls` (implicit TLS on any port), `starttls`
 * (STARTTLS required: a server that does not offer it is refused, so credentials never travel in
 * clear), `none` (plain SMTP, for a relay on localhost).
 */
export const emailType: NotifierType = {
  type: 'email',
  displayName: 'Email (SMTP)',
  description: 'Sends each event as an email (plain text and HTML) through an SMTP server.',
  configSchema: {
    type: 'object',
    properties: {
      host: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: '^[^\\s/]+$',
        description: 'SMTP server host name or address.',
      },
      port: {
        anyOf: [
          { type: 'integer', minimum: 1, maximum: 65535 },
          { type: 'string', pattern: '^[0-9]{1,5}$' },
        ],
        description: 'SMTP port: 587 (submission, STARTTLS), 465 (implicit TLS) or 25.',
      },
      username: { type: 'string', maxLength: 255, description: 'Login name, when the server requires authentication.' },
      password: { type: 'string', maxLength: 1024, description: 'Password for the login.' },
      from: { type: 'string', minLength: 3, maxLength: 320, description: 'Sender: an address, or "Name <address>".' },
      to: { type: 'string', minLength: 3, maxLength: 4096, description: 'Recipients, separated by commas.' },
      security: {
        type: 'string',
        enum: ['auto', 'tls', 'starttls', 'none'],
        default: 'auto',
        description:
          'auto: implicit TLS on port 465, otherwise STARTTLS when offered; tls: implicit TLS; starttls: STARTTLS required; none: no TLS.',
      },
      rejectUnauthorized: {
        type: 'boolean',
        default: true,
        description: 'Refuse a server certificate that does not verify (turn off only for a self-signed test server).',
      },
    },
    required: ['host', 'port', 'from', 'to'],
    additionalProperties: false,
  },
  secretFields: ['password'],
  addressKinds: ['email'],
  create(config) {
    return new EmailNotifier(config);
  },
};

/** A header value on one line: CR and LF removed, so a title cannot add headers. */
export function headerValue(value: string): string {
  return value.replace(/[\r\n]+/g, ' ').trim();
}

/** The recipients of a comma (or semicolon) separated list. */
export function recipients(list: string): string[] {
  return list
    .split(/[,;]/)
    .map((a) => headerValue(a))
    .filter(Boolean);
}

class EmailNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;

  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    const port = Number(c.port);
    const security = String(c.security ?? 'auto');
    const password = typeof c.password === 'string' ? c.password : '';
    const username = typeof c.username === 'string' ? c.username.trim() : '';
    const to =
      options.address?.kind === 'email' ? [headerValue(options.address.value)] : recipients(String(c.to ?? ''));
    if (to.length === 0) throw new ProviderError('permanent', 'The email channel has no recipient.');
    if (options.signal?.aborted) throw new ProviderError('transient', 'The delivery was aborted before it started.');
    // Loaded on the first mail, not when the master starts: nodemailer is ~20 MiB resident.
    const { createTransport } = await import('nodemailer');
    const transport = createTransport({
      host: String(c.host),
      port,
      secure: security === 'tls' || (security === 'auto' && port === 465),
      requireTLS: security === 'starttls',
      ignoreTLS: security === 'none',
      ...(username ? { auth: { user: username, pass: password } } : {}),
      tls: { rejectUnauthorized: c.rejectUnauthorized !== false },
      connectionTimeout: PHASE_TIMEOUT_MS,
      greetingTimeout: PHASE_TIMEOUT_MS,
      socketTimeout: PHASE_TIMEOUT_MS,
    });
    const sending = transport.sendMail({
      from: headerValue(String(c.from)),
      to,
      subject: headerValue(message.title),
      text: textBody(message),
      html: htmlBody(message),
      // The same id on every attempt: mail clients and archives collapse a repeated delivery.
      messageId: `<${message.idempotencyKey}@backplane>`,
      headers: { 'X-Backplane-Event': message.event, 'X-Backplane-Idempotency-Key': message.idempotencyKey },
    });
    try {
      await abortable(sending, options.signal);
    } catch (err) {
      throw smtpError(err, (text) => redactSecrets(text, [password]));
    } finally {
      transport.close();
    }
  }
}

/** `work`, or a transient failure as soon as `signal` aborts (the SMTP exchange is then left to its timeouts). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  work.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new ProviderError('transient', 'The SMTP server did not answer in time (the delivery was aborted).'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
