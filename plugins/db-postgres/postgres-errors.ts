import { ProviderError, type ProviderErrorKind, cleanMessage } from '@backplane/plugin-api';

/** SQLSTATEs: 28P01 wrong password, 28000 unknown role or refused by pg_hba, 3D000 unknown database. */
const AUTH_CODES = new Set(['28P01', '28000']);
const TRANSIENT_CODES = new Set([
  '57P03',
  '53300',
  '08006',
  '08001',
  '08004',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * What pg_dump and psql print on stderr for a failure that may pass (kind 'transient'): the
 * alternatives of one case-insensitive pattern, joined with `|`.
 */
const TRANSIENT_STDERR_ALTERNATIVES = [
  /connection refused|timeout expired|could not connect|could not translate host name.*temporary/,
  /the database system is (starting|shutting) up|too many clients|server closed the connection/,
];
const TRANSIENT_STDERR = new RegExp(TRANSIENT_STDERR_ALTERNATIVES.map((a) => a.source).join('|'), 'i');

/** Kind of a failure reported by pg_dump or psql on stderr. */
export function classifyPgStderr(stderr: string): ProviderErrorKind {
  if (
    /password authentication failed|role "[^"]*" does not exist|no password supplied|no pg_hba\.conf entry|permission denied for database/i.test(
      stderr,
    )
  )
    return 'auth';
  if (/database "[^"]*" does not exist/i.test(stderr)) return 'not_found';
  if (TRANSIENT_STDERR.test(stderr)) return 'transient';
  return 'permanent';
}

/** A `pg` client error as a ProviderError, with the password removed from its message. */
export function pgError(err: unknown, action: string, password: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const code = (err as { code?: unknown } | undefined)?.code;
  const message = err instanceof Error ? err.message : String(err);
  let kind: ProviderErrorKind = 'permanent';
  if (typeof code === 'string' && AUTH_CODES.has(code)) kind = 'auth';
  else if (code === '3D000') kind = 'not_found';
  else if (typeof code === 'string' && TRANSIENT_CODES.has(code)) kind = 'transient';
  else if (/timeout|terminated unexpectedly|Connection terminated/i.test(message)) kind = 'transient';
  return new ProviderError(kind, `postgresql: ${action}: ${cleanMessage(message, [password])}`, { cause: err });
}
