import { ProviderError, type ProviderErrorKind } from '@backplane/plugin-api';

/** errno codes a retry can cure: descriptor exhaustion, a busy or interrupted call, a slow network mount. */
const TRANSIENT = new Set(['EAGAIN', 'EBUSY', 'EINTR', 'EMFILE', 'ENFILE', 'ETIMEDOUT', 'ESTALE']);

export function errnoCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for "this path (or one of its folders) is not there": a missing object, not a failure. */
export function isMissing(err: unknown): boolean {
  const code = errnoCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

export function kindOf(code: string | undefined): ProviderErrorKind {
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return 'not_found';
  if (code === 'EACCES' || code === 'EPERM') return 'auth';
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') return 'quota';
  if (code !== undefined && TRANSIENT.has(code)) return 'transient';
  return 'permanent';
}

/**
 * Classifies a file-system failure. A ProviderError passes through; an error without an errno
 * code (the caller's own stream failing, an abort) is returned unchanged so the caller sees its
 * own error rather than a provider failure.
 */
export function toProviderError(err: unknown, action: string): unknown {
  if (err instanceof ProviderError) return err;
  const code = errnoCode(err);
  if (code === undefined || !(err instanceof Error)) return err;
  return new ProviderError(kindOf(code), `local disk: ${action}: ${err.message}`, { cause: err });
}
