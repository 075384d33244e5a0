import { ProviderError, type ProviderErrorKind } from '@backplane/plugin-api';

/**
 * Maps what the Google client libraries throw (GaxiosError: an HTTP status and Google's error
 * body, or a network failure without a response) onto ProviderError kinds, keeping Google's
 * reason in the message.
 *
 * Drive reports errors as `{"error":{"code":403,"message":"...","errors":[{"reason":"..."}]}}`;
 * the OAuth token endpoint as `{"error":"invalid_grant","error_description":"..."}`.
 */

/** 403 reasons that mean "out of space / out of quota", not "forbidden". */
const QUOTA_REASONS = new Set([
  'storageQuotaExceeded',
  'quotaExceeded',
  'dailyLimitExceeded',
  'teamDriveFileLimitExceeded',
  'numChildrenInNonRootLimitExceeded',
]);
/** 403 reasons that mean "slow down": Drive reports rate limits as 403 as well as 429. */
const RATE_REASONS = new Set(['userRateLimitExceeded', 'rateLimitExceeded', 'sharingRateLimitExceeded']);
/** Network failures worth retrying (no HTTP response at all). */
const TRANSIENT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'TimeoutError',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

export interface GoogleFailure {
  /** HTTP status, when Google answered. */
  status?: number;
  /** Drive's `errors[0].reason` or the OAuth `error` code. */
  reason?: string;
  /** Google's human-readable message. */
  message: string;
  /** True when the body was an OAuth error (`{"error":"invalid_grant",...}`). */
  oauth: boolean;
  /** The network error code when there was no response. */
  code?: string;
}

interface ErrorLike {
  message?: unknown;
  status?: unknown;
  code?: unknown;
  cause?: unknown;
  response?: { status?: unknown; data?: unknown };
}

function parseBody(data: unknown): unknown {
  if (typeof data !== 'string') return data;
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return data;
  }
}

function networkCode(err: ErrorLike): string | undefined {
  // gaxios copies a cause's `code`; undici nests it one level deeper (`fetch failed` -> cause).
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as ErrorLike).cause, depth++) {
    const code = (e as ErrorLike).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** What Google said, as far as it can be read from a thrown error. */
export function describeFailure(err: unknown): GoogleFailure {
  const e = (err && typeof err === 'object' ? err : {}) as ErrorLike;
  const status = typeof e.response?.status === 'number' ? e.response.status : undefined;
  const body = parseBody(e.response?.data);
  const fallback = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown; error_description?: unknown }).error;
    if (typeof error === 'string') {
      const description = (body as { error_description?: unknown }).error_description;
      return {
        status,
        reason: error,
        message: typeof description === 'string' && description !== '' ? `${error}: ${description}` : error,
        oauth: true,
      };
    }
    if (error && typeof error === 'object') {
      const { message, errors } = error as { message?: unknown; errors?: unknown };
      const first = Array.isArray(errors) ? (errors[0] as { reason?: unknown } | undefined) : undefined;
      const reason = typeof first?.reason === 'string' ? first.reason : undefined;
      return {
        status,
        reason,
        message: typeof message === 'string' && message !== '' ? message : fallback,
        oauth: false,
      };
    }
  }
  if (status !== undefined)
    return {
      status,
      message: typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 300) : fallback,
      oauth: false,
    };
  return { message: fallback, oauth: false, code: networkCode(e) };
}

export function kindOf(failure: GoogleFailure): ProviderErrorKind {
  const { status, reason } = failure;
  if (failure.oauth) {
    // The token endpoint refused the client, the code or the refresh token.
    if (status !== undefined && (status === 429 || status >= 500)) return 'transient';
    return 'auth';
  }
  if (status === undefined) {
    if (failure.code !== undefined && /abort/i.test(failure.code)) return 'permanent'; // the caller gave up
    return 'transient'; // no answer at all: connection refused, reset, timed out
  }
  if (status === 401) return 'auth';
  if (status === 403) {
    if (reason && QUOTA_REASONS.has(reason)) return 'quota';
    if (reason && RATE_REASONS.has(reason)) return 'transient';
    return 'auth';
  }
  if (status === 404 || status === 410) return 'not_found';
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  if (reason && QUOTA_REASONS.has(reason)) return 'quota';
  return 'permanent';
}

/** True when the error should be retried (network failure, 408, 429, 5xx, rate-limit 403). */
export function isRetryable(err: unknown): boolean {
  if (err instanceof ProviderError) return err.kind === 'transient';
  const failure = describeFailure(err);
  if (failure.status === undefined)
    return failure.code === undefined || TRANSIENT_CODES.has(failure.code) || !/abort/i.test(failure.code);
  return kindOf(failure) === 'transient';
}

/** `err` as a ProviderError whose message says what failed and what Google answered. */
export function toProviderError(err: unknown, what: string): ProviderError {
  if (err instanceof ProviderError) return err;
  const failure = describeFailure(err);
  const kind = kindOf(failure);
  const detail = [failure.status, failure.reason].filter((v) => v !== undefined).join(' ');
  const message = `google drive: ${what} failed: ${failure.message}${detail ? ` (${detail})` : ''}`;
  return new ProviderError(kind, message, { cause: err });
}
