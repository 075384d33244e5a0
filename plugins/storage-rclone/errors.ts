import { ProviderError, type ProviderErrorKind } from '@backplane/plugin-api';

/** Longest reason passed on from rclone's stderr. */
export const MAX_REASON = 500;

/** rclone's documented exit codes (https://rclone.org/docs/#exit-code). */
const EXIT_DIR_NOT_FOUND = 3;
const EXIT_FILE_NOT_FOUND = 4;
const EXIT_TEMPORARY = 5;

/** One case-insensitive pattern matching any of `alternatives` (their sources joined with `|`). */
const anyOf = (alternatives: readonly RegExp[]) => new RegExp(alternatives.map((a) => a.source).join('|'), 'i');

/** Messages of a refused or expired credential (kind 'auth'); each entry holds one or more alternatives of `AUTH`. */
const AUTH_ALTERNATIVES = [
  /\b(401|403)\b|unauthori[sz]ed|forbidden|unable to authenticate|authentication (failed|required)/,
  /auth(entication)? error|access ?denied|invalidaccesskeyid|signaturedoesnotmatch|invalid_grant|invalid_client/,
  /invalid credentials|bad credentials|login (failed|incorrect)|\b530\b|permission denied|not authori[sz]ed/,
  /expired token|token (has )?expired/,
];
const AUTH = anyOf(AUTH_ALTERNATIVES);
const QUOTA =
  /quota|no space left|insufficient (storage|space)|\b507\b|storage limit|disk full|not enough space|entitytoolarge|exceeded.*(limit|storage)/i;
const NOT_FOUND =
  /object not found|directory not found|file not found|not found|doesn't exist|does not exist|no such file|not a directory|nosuchkey|nosuchbucket/i;
const CONFIG = /didn't find backend called|didn't find section in config|unknown backend|couldn't find type/i;
/** Messages of a failure that may pass (kind 'transient'); each entry holds one or more alternatives of `TRANSIENT`. */
const TRANSIENT_ALTERNATIVES = [
  /time(d)? ?out|deadline exceeded|connection refused|connection reset|closed network connection|broken pipe/,
  /no route to host|network is unreachable|host is down|temporar|try again|too many requests|\b429\b|\b50[0234]\b/,
  /service unavailable|bad gateway|unexpected eof|\beof\b|tls handshake|no such host|server misbehaving/,
  /rate ?limit|throttl|slow ?down/,
];
const TRANSIENT = anyOf(TRANSIENT_ALTERNATIVES);

/**
 * Redacts what could be a credential in a message: the given secret values (and their obscured
 * forms), `user:password@` in URLs, `key=value` pairs of credential-looking keys, and
 * Authorization headers.
 */
export function redact(text: string, secrets: Iterable<string> = []): string {
  let out = text;
  const values = [...new Set([...secrets].filter((s) => typeof s === 'string' && s.length >= 3))].sort(
    (a, b) => b.length - a.length,
  );
  for (const value of values) out = out.split(value).join('***');
  out = out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]+@/gi, '$1***:***@');
  out = out.replace(
    /\b(authorization|x-api-key|x-auth-token|cookie)(["']?\s*[:=]\s*["']?)(bearer\s+|basic\s+)?[^\s"',;]+/gi,
    '$1$2$3***',
  );
  out = out.replace(
    /\b([a-z_]*(?:pass|password|secret|token|key|credentials|signature|sig)["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi,
    '$1***',
  );
  return out;
}

/** Cuts a reason to `max` characters. */
export function trimReason(text: string, max = MAX_REASON): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const STAMP = /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}(\.\d+)? /;

/**
 * The most telling line of rclone's stderr (run with `--log-level ERROR`): its final
 * `Failed to <command>: ...` line, else the last ERROR line, else the last line at all.
 */
export function reasonFromStderr(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.replace(STAMP, '').trim())
    .filter((l) => l !== '');
  const failed = lines.filter((l) => /^Failed to /.test(l)).pop();
  const error = lines.filter((l) => /^(ERROR|CRITICAL|FATAL)\b/.test(l)).pop();
  const line = failed ?? error ?? lines.pop() ?? '';
  return (
    line
      .replace(/^(ERROR|CRITICAL|FATAL|NOTICE)\s*:\s*/, '')
      // "Failed to cat with 2 errors: last error was: directory not found" -> "directory not found"
      .replace(/^Failed to [a-z-]+( with \d+ errors?: last error was)?: /, '')
  );
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** The kind of an rclone failure, from its message and exit code. */
export function kindOf(code: number | null, message: string): ProviderErrorKind {
  if (CONFIG.test(message)) return 'permanent';
  if (AUTH.test(message)) return 'auth';
  if (QUOTA.test(message)) return 'quota';
  if (code === EXIT_DIR_NOT_FOUND || code === EXIT_FILE_NOT_FOUND || NOT_FOUND.test(message)) return 'not_found';
  if (code === EXIT_TEMPORARY || TRANSIENT.test(message)) return 'transient';
  return 'permanent';
}

/** A ProviderError for a failed rclone run; the reason is rclone's, redacted and trimmed. */
export function rcloneFailure(action: string, exit: ExitInfo, secrets: Iterable<string>): ProviderError {
  const raw =
    reasonFromStderr(exit.stderr) ||
    (exit.signal ? `rclone was killed by ${exit.signal}` : `rclone exited with code ${String(exit.code)}`);
  const reason = trimReason(redact(raw, secrets), MAX_REASON - action.length - 10);
  return new ProviderError(kindOf(exit.code, raw), `rclone ${action}: ${reason}`);
}

/** rclone reports a missing path (a missing object, or a missing folder on the way to it). */
export function isNotFound(exit: ExitInfo): boolean {
  return kindOf(exit.code, reasonFromStderr(exit.stderr)) === 'not_found';
}

/** The error for an environment without a usable rclone binary. */
export function notInstalled(binary: string, detail?: string): ProviderError {
  return new ProviderError(
    'unsupported',
    `rclone is not installed or not usable (binary "${binary}"${detail ? `: ${trimReason(detail, 300)}` : ''}); install rclone or set BACKPLANE_RCLONE_BINARY`,
  );
}
