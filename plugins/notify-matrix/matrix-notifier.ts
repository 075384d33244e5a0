import {
  deliverHttp,
  escapeHtml,
  shownFields,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';

/**
 * Matrix (any homeserver): `PUT /_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId}`
 * with the bot's access token. The transaction id comes from the message's idempotency key, so a
 * retried delivery is deduplicated by the homeserver itself (Matrix's own idempotency).
 */
export const matrixType: NotifierType = {
  type: 'matrix',
  displayName: 'Matrix',
  description: 'Posts each event to a Matrix room.',
  configSchema: {
    type: 'object',
    properties: {
      homeserverUrl: {
        type: 'string',
        minLength: 1,
        maxLength: 2048,
        pattern: URL_PATTERN,
        description: 'The homeserver URL (https://matrix.example.org).',
      },
      accessToken: {
        type: 'string',
        minLength: 1,
        maxLength: 1024,
        description: 'The access token of the account that posts (a bot user).',
      },
      roomId: {
        type: 'string',
        minLength: 3,
        maxLength: 255,
        pattern: '^!.+:.+$',
        description: 'The room id (!abc:example.org); the account must have joined it.',
      },
    },
    required: ['homeserverUrl', 'accessToken', 'roomId'],
    additionalProperties: false,
  },
  secretFields: ['accessToken'],
  create(config) {
    return new MatrixNotifier(config);
  },
};

/** The room message: plain `body` and HTML `formatted_body`. */
export function matrixContent(message: NotificationMessage): Record<string, unknown> {
  const fields = shownFields(message.fields);
  const plain = [
    message.title,
    '',
    message.body,
    ...fields.map(([k, v]) => `${k}: ${v}`),
    ...(message.link ? ['', message.link] : []),
  ].join('\n');
  const html =
    `<h4>${escapeHtml(message.title)}</h4><p>${escapeHtml(message.body).replace(/\n/g, '<br>')}</p>` +
    (fields.length
      ? `<ul>${fields.map(([k, v]) => `<li><b>${escapeHtml(k)}</b>: ${escapeHtml(v)}</li>`).join('')}</ul>`
      : '') +
    (message.link ? `<p><a href="${escapeHtml(message.link)}">Open in Backplane</a></p>` : '');
  return {
    msgtype: message.severity === 'info' || message.severity === 'success' ? 'm.notice' : 'm.text',
    body: plain,
    format: 'org.matrix.custom.html',
    formatted_body: html,
  };
}

/** A transaction id from the idempotency key (Matrix accepts any path-safe string). */
export function transactionId(idempotencyKey: string): string {
  return idempotencyKey.replace(/[^A-Za-z0-9._~-]/g, '_');
}

class MatrixNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    const base = String(c.homeserverUrl).replace(/\/+$/, '');
    const token = String(c.accessToken);
    await deliverHttp({
      service: 'The Matrix homeserver',
      url: `${base}/_matrix/client/v3/rooms/${encodeURIComponent(String(c.roomId))}/send/m.room.message/${transactionId(message.idempotencyKey)}`,
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(matrixContent(message)),
      signal: options.signal,
      secrets: [token],
      // 403 M_FORBIDDEN: the account is not in the room. Its token works, so this is a refused
      // message (permanent), not a refused credential; 401 M_UNKNOWN_TOKEN stays auth.
      classify: (status, body) => (status === 403 && body.includes('M_FORBIDDEN') ? 'permanent' : undefined),
    });
  }
}
