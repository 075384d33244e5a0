import { ProviderError } from './contracts.ts';

/** One HTTP request a notifier makes to its service. */
export interface DeliveryRequest {
  /** The service's name for error messages (`Slack`, `ntfy`...). */
  service: string;
  url: string;
  method?: 'POST' | 'PUT';
  headers?: Record<string, string>;
  body: string | Uint8Array;
  /** Core's abort signal (SendOptions.signal). */
  signal?: AbortSignal;
  /** The request's own limit, in milliseconds (default 10 s), on top of `signal`. */
  timeoutMs?: number;
  /** Values that must never appear in an error message: tokens, passwords, a URL that holds one. */
  secrets?: readonly unknown[];
  /**
   * The kind of a refusal, where the service says more than its status (Slack's 404
   * `no_service` is a revoked URL: `auth`); undefined falls back to `statusKind`.
   */
  classify?(status: number, body: string): 'auth' | 'transient' | 'permanent' | undefined;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** How much of a refusing service's answer an error message quotes. */
const QUOTED_ANSWER = 200;

/** `text` with every secret (of at least 4 characters, and its URL-encoded form) replaced by `***`. */
export function redactSecrets(text: string, secrets: readonly unknown[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length < 4) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) out = out.split(form).join('***');
  }
  return out;
}

/** The ProviderError kind of an HTTP status a service answered with (2xx/3xx excluded). */
export function statusKind(status: number): 'auth' | 'transient' | 'permanent' {
  if (status === 401 || status === 403) return 'auth';
  if (status === 408 || status === 425 || status === 429 || status >= 500) return 'transient';
  return 'permanent';
}

/**
 * Sends one request and resolves with the answer when the status is 2xx. Otherwise rejects with a
 * ProviderError whose kind follows `statusKind`; a network failure, a timeout or an abort is
 * `transient`. Messages quote the start of the service's answer and never a secret.
 */
export async function deliverHttp(request: DeliveryRequest): Promise<{ status: number; body: string }> {
  const { service, secrets = [] } = request;
  const clean = (text: string) => redactSecrets(text, secrets);
  const limit = AbortSignal.timeout(request.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const signal = request.signal ? AbortSignal.any([request.signal, limit]) : limit;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'POST',
      headers: request.headers,
      body: request.body,
      signal,
      redirect: 'manual',
    });
  } catch (err) {
    const reason = signal.aborted
      ? limit.aborted
        ? `no answer within ${(request.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000} s`
        : 'the delivery was aborted'
      : networkReason(err);
    // The cause is left out: fetch's errors can carry the URL, which may hold a token.
    throw new ProviderError('transient', clean(`${service} could not be reached: ${reason}`));
  }
  let text = '';
  try {
    text = await response.text();
  } catch {
    text = ''; // an answer cut short: the status decides
  }
  if (response.status >= 200 && response.status < 300) return { status: response.status, body: text };
  const quoted = text.replace(/\s+/g, ' ').trim().slice(0, QUOTED_ANSWER);
  const kind =
    request.classify?.(response.status, text) ??
    (response.status >= 300 && response.status < 400 ? 'permanent' : statusKind(response.status));
  throw new ProviderError(kind, clean(`${service} answered HTTP ${response.status}${quoted ? `: ${quoted}` : ''}`));
}

/** fetch's reason without its URL: the code of the underlying socket error where there is one. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } })?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}

/** Why `value` is not an http(s) URL, or undefined when it is one. */
export function httpUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return 'is required';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  return undefined;
}
