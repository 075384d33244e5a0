import { ProviderError, type ProviderErrorKind, cleanMessage } from '@backplane/plugin-api';

/** 1045 wrong user/password, 1044/1142 no privilege, 1049 unknown database, 2002/2003/2013 cannot connect. */
const AUTH_ERRNOS = new Set([1044, 1045, 1698]);
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_LOCK_WAIT_TIMEOUT',
]);

/** Kind of a failure reported by mysqldump or mysql on stderr. */
export function classifyMysqlStderr(stderr: string): ProviderErrorKind {
  if (/\b(1045|1044|1698)\b|Access denied/i.test(stderr)) return 'auth';
  if (/\b1049\b|Unknown database/i.test(stderr)) return 'not_found';
  if (/\b(2002|2003|2005|2006|2013|1040)\b|Can't connect|Lost connection|Too many connections/i.test(stderr))
    return 'transient';
  return 'permanent';
}

/** A `mysql2` error as a ProviderError, with the password removed from its message. */
export function mysqlError(err: unknown, action: string, password: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const { code, errno } = (err ?? {}) as { code?: unknown; errno?: unknown };
  const message = err instanceof Error ? err.message : String(err);
  let kind: ProviderErrorKind = 'permanent';
  if (typeof errno === 'number' && AUTH_ERRNOS.has(errno)) kind = 'auth';
  else if (errno === 1049) kind = 'not_found';
  else if (typeof code === 'string' && TRANSIENT_CODES.has(code)) kind = 'transient';
  return new ProviderError(kind, `mysql: ${action}: ${cleanMessage(message, [password])}`, { cause: err });
}
