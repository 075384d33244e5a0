import { ProviderError } from '@backplane/plugin-api';

/** Socket-level failures of nodemailer: the server could not be reached or stopped answering. */
const UNREACHABLE = new Set([
  'ECONNECTION',
  'ETIMEDOUT',
  'ESOCKET',
  'EDNS',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * A nodemailer failure as a ProviderError. The message quotes the server's reply, never the
 * SMTP command (AUTH carries the password, base64-encoded), and passes through `clean`.
 */
export function smtpError(err: unknown, clean: (text: string) => string): ProviderError {
  if (err instanceof Error && err.name === 'ProviderError') return err as ProviderError;
  const e = (err ?? {}) as { code?: string; responseCode?: number; response?: string; message?: string };
  const reply = clean(
    String(e.response ?? e.message ?? 'unknown error')
      .replace(/\s+/g, ' ')
      .slice(0, 200),
  );
  const code = e.responseCode;
  if (e.code === 'EAUTH' || code === 535 || code === 534 || code === 530)
    return new ProviderError('auth', `The SMTP server refused the login: ${reply}`);
  if (typeof code === 'number' && code >= 400 && code < 500)
    return new ProviderError('transient', `The SMTP server deferred the message: ${reply}`);
  if (typeof code === 'number' && code >= 500)
    return new ProviderError('permanent', `The SMTP server refused the message: ${reply}`);
  if (e.code === 'ETLS') return new ProviderError('permanent', `TLS with the SMTP server failed: ${reply}`);
  if (e.code && UNREACHABLE.has(e.code))
    return new ProviderError('transient', `The SMTP server could not be reached: ${reply}`);
  return new ProviderError('transient', `Sending the email failed: ${reply}`);
}
