import {
  deliverHttp,
  escapeHtml,
  shownFields,
  truncate,
  type NotificationMessage,
  type NotifierInstance,
  type NotifierType,
  type SendOptions,
} from '@backplane/plugin-api';

const URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$';
const ICON: Record<string, string> = { error: '🔴', warning: '🟠', success: '🟢', info: '🔵' };

/**
 * Telegram's Bot API `sendMessage` (fields `botToken`, `chatId`), as HTML. The token is
 * part of the URL path, so every error message is cleaned of it. `apiUrl` points at a local Bot
 * API server or a test stand-in.
 */
export const telegramType: NotifierType = {
  type: 'telegram',
  displayName: 'Telegram',
  description: 'Sends each event to a Telegram chat, group or channel through a bot.',
  configSchema: {
    type: 'object',
    properties: {
      botToken: {
        type: 'string',
        minLength: 1,
        maxLength: 256,
        pattern: '^[^\\s/]+$',
        description: 'The bot token from @BotFather (123456:ABC-...).',
      },
      chatId: {
        anyOf: [{ type: 'string', minLength: 1, maxLength: 128 }, { type: 'integer' }],
        description: 'Chat id (a number, negative for groups) or @channelusername.',
      },
      messageThreadId: { type: 'integer', minimum: 1, description: 'Topic (forum thread) to post into.' },
      disableNotification: { type: 'boolean', default: false, description: 'Send silently.' },
      apiUrl: {
        type: 'string',
        maxLength: 2048,
        pattern: URL_PATTERN,
        default: 'https://api.telegram.org',
        description: 'Bot API server (a self-hosted Bot API server, or the default).',
      },
    },
    required: ['botToken', 'chatId'],
    additionalProperties: false,
  },
  secretFields: ['botToken'],
  create(config) {
    return new TelegramNotifier(config);
  },
};

/** The message as Telegram HTML: bold title, body, fields, link; at most 4096 characters. */
export function telegramText(message: NotificationMessage): string {
  const fields = shownFields(message.fields).map(
    ([k, v]) => `<b>${escapeHtml(k)}</b>: ${escapeHtml(truncate(v, 300))}`,
  );
  const link = message.link ? [`<a href="${escapeHtml(message.link)}">Open in Backplane</a>`] : [];
  const head = `${ICON[message.severity] ?? ''} <b>${escapeHtml(message.title)}</b>`;
  const rest = [escapeHtml(message.body), '', ...fields, ...link].join('\n');
  // Cut the plain parts only, never inside a tag: the body is escaped text.
  return `${head}\n\n${rest}`.length <= 4096
    ? `${head}\n\n${rest}`
    : `${head}\n\n${escapeHtml(truncate(message.body, 4000 - head.length))}`;
}

class TelegramNotifier implements NotifierInstance {
  readonly #config: Record<string, unknown>;
  constructor(config: Record<string, unknown>) {
    this.#config = config;
  }

  async send(message: NotificationMessage, options: SendOptions = {}): Promise<void> {
    const c = this.#config;
    const token = String(c.botToken);
    const api = String(c.apiUrl ?? 'https://api.telegram.org').replace(/\/+$/, '');
    await deliverHttp({
      service: 'Telegram',
      url: `${api}/bot${token}/sendMessage`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chat_id: c.chatId,
        text: telegramText(message),
        parse_mode: 'HTML',
        link_preview_options: { is_disabled: true },
        ...(c.messageThreadId ? { message_thread_id: c.messageThreadId } : {}),
        ...(c.disableNotification ? { disable_notification: true } : {}),
      }),
      signal: options.signal,
      secrets: [token],
      // A malformed token is 404 Not Found from the Bot API: the credential is wrong.
      classify: (status) => (status === 404 ? 'auth' : undefined),
    });
  }
}
