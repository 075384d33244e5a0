import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import { throttle } from './throttle.ts';

/** JSON calls that take longer than this are cut; streams have no limit (a backup can take hours). */
export const JSON_TIMEOUT_MS = 120_000;
/** A reply envelope larger than this is not something the master sends. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_SOCKET',
  'TIMEOUT',
]);
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/**
 * A failed call. `status` is the HTTP status (absent for network failures); `code` is the
 * envelope's code or the system error code; `retryable` tells a master that is away (connection
 * refused or reset, timeout, 502/503/504) from one that said no (4xx).
 */
export class MasterError extends Error {
  override name = 'MasterError';
  readonly status: number | undefined;
  readonly code: string;
  readonly retryable: boolean;
  constructor(message: string, details: { status?: number; code: string; retryable: boolean; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.status = details.status;
    this.code = details.code;
    this.retryable = details.retryable;
  }
}

export function isRetryable(err: unknown): boolean {
  return err instanceof MasterError && err.retryable;
}

export interface MasterClientOptions {
  /** Base URL without a trailing slash. */
  master: string;
  /** The node token; empty only for enrollment. */
  token: string;
  /** Extra trusted CA certificates (PEM) for an https master. */
  ca?: string | Buffer;
  /** An http(s) proxy every request to the master goes through (CONNECT for an https master). */
  proxy?: string;
  /** Overrides JSON_TIMEOUT_MS (tests). */
  jsonTimeoutMs?: number;
}

export interface RequestOptions {
  headers?: Record<string, string | number>;
  signal?: AbortSignal;
  /** Enrollment has no token yet. */
  anonymous?: boolean;
}

export interface Download {
  stream: Readable;
  headers: IncomingHttpHeaders;
}

function networkError(err: unknown, method: string, path: string): MasterError {
  if (err instanceof MasterError) return err;
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'AbortError')
    return new MasterError(`${method} ${path}: aborted`, { code: 'ABORTED', retryable: false, cause: err });
  const code = typeof e?.code === 'string' ? e.code : 'NETWORK_ERROR';
  return new MasterError(`${method} ${path}: ${e?.message ?? String(err)}`, {
    code,
    retryable: RETRYABLE_NETWORK_CODES.has(code) || code === 'NETWORK_ERROR',
    cause: err,
  });
}

async function readBody(res: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      res.destroy();
      throw new MasterError(`the master's reply exceeds ${limit} bytes`, {
        status: res.statusCode,
        code: 'REPLY_TOO_LARGE',
        retryable: false,
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The envelope's `data` of a 2xx reply, or the MasterError its status and code describe. */
function unwrap(res: IncomingMessage, body: Buffer, method: string, path: string): unknown {
  const status = res.statusCode ?? 0;
  let envelope: { code?: unknown; message?: unknown; data?: unknown } | undefined;
  try {
    envelope = body.length > 0 ? (JSON.parse(body.toString('utf8')) as typeof envelope) : undefined;
  } catch {
    envelope = undefined;
  }
  if (status >= 200 && status < 300) {
    if (envelope?.code === 'OK') return envelope.data;
    throw new MasterError(`${method} ${path}: the master's reply is not an OK envelope`, {
      status,
      code: 'BAD_REPLY',
      retryable: false,
    });
  }
  const code =
    typeof envelope?.code === 'string'
      ? envelope.code
      : status >= 300 && status < 400
        ? 'REDIRECT_REFUSED'
        : `HTTP_${status}`;
  const detail = typeof envelope?.message === 'string' ? envelope.message : (res.statusMessage ?? '');
  throw new MasterError(`${method} ${path}: ${status} ${code}${detail ? ` (${detail})` : ''}`, {
    status,
    code,
    retryable: RETRYABLE_STATUSES.has(status),
  });
}

/** The agent's side of docs/agent-protocol.md: every call carries X-Agent-Token; redirects are never followed. */
export class MasterClient {
  readonly #base: URL;
  readonly #token: string;
  readonly #ca: string | Buffer | undefined;
  readonly #jsonTimeoutMs: number;
  readonly #agent: http.Agent;
  readonly #proxy: string | undefined;

  constructor(options: MasterClientOptions) {
    this.#proxy = options.proxy;
    this.#base = new URL(`${options.master.replace(/\/+$/, '')}/`);
    this.#token = options.token;
    this.#ca = options.ca;
    this.#jsonTimeoutMs = options.jsonTimeoutMs ?? JSON_TIMEOUT_MS;
    // Node's own proxy support: the agent sees the proxy as HTTP(S)_PROXY, and nothing else of the environment.
    const proxyEnv = options.proxy ? { proxyEnv: { HTTP_PROXY: options.proxy, HTTPS_PROXY: options.proxy } } : {};
    this.#agent =
      this.#base.protocol === 'https:'
        ? new https.Agent({ keepAlive: true, ...(this.#ca ? { ca: this.#ca } : {}), ...proxyEnv })
        : new http.Agent({ keepAlive: true, ...proxyEnv });
  }

  /** The absolute URL of a master path (restic on this node reaches the repository bridge there). */
  urlOf(path: string): string {
    return this.#url(path).href;
  }

  /** What a child program needs to reach the master as this client does: the CA to trust and the proxy. */
  get transport(): { ca: string | Buffer | undefined; proxy: string | undefined } {
    return { ca: this.#ca, proxy: this.#proxy };
  }

  /** Frees pooled connections (the agent at exit, tests). */
  close(): void {
    this.#agent.destroy();
  }

  #url(path: string): URL {
    return new URL(path.replace(/^\/+/, ''), this.#base);
  }

  /** Sends one request; resolves with the response head, the body still unread. */
  #send(
    method: string,
    path: string,
    options: RequestOptions & { timeoutMs?: number; body?: Buffer | Readable; contentLength?: number },
  ): Promise<IncomingMessage> {
    const url = this.#url(path);
    const headers: Record<string, string | number> = { accept: 'application/json', ...options.headers };
    if (!options.anonymous) headers['x-agent-token'] = this.#token;
    if (Buffer.isBuffer(options.body)) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = options.body.length;
    } else if (options.contentLength !== undefined) headers['content-length'] = options.contentLength;
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = transport.request(url, { method, headers, agent: this.#agent, signal: options.signal }, resolve);
      req.on('error', (err) => reject(networkError(err, method, path)));
      if (options.timeoutMs) {
        req.setTimeout(options.timeoutMs, () =>
          req.destroy(Object.assign(new Error(`no answer within ${options.timeoutMs} ms`), { code: 'TIMEOUT' })),
        );
      }
      const body = options.body;
      if (body === undefined) req.end();
      else if (Buffer.isBuffer(body)) req.end(body);
      else {
        body.on('error', (err) => req.destroy(err));
        body.pipe(req);
      }
    });
  }

  async #json<T>(method: string, path: string, payload: unknown, options: RequestOptions = {}): Promise<T> {
    const body = payload === undefined ? undefined : Buffer.from(JSON.stringify(payload));
    const res = await this.#send(method, path, { ...options, body, timeoutMs: this.#jsonTimeoutMs });
    try {
      return (await unwrap(res, await readBody(res, MAX_JSON_BYTES), method, path)) as T;
    } catch (err) {
      throw networkError(err, method, path);
    }
  }

  get<T>(path: string, options?: RequestOptions): Promise<T> {
    return this.#json<T>('GET', path, undefined, options);
  }

  post<T>(path: string, body: unknown, options?: RequestOptions): Promise<T> {
    return this.#json<T>('POST', path, body ?? {}, options);
  }

  /** PUTs a file's bytes with its exact Content-Length (the master refuses a body without one). */
  async putFile<T>(
    path: string,
    filePath: string,
    headers: Record<string, string> = {},
    options: RequestOptions & { bytesPerSecond?: number } = {},
  ): Promise<T> {
    const { size } = await stat(filePath);
    const file = createReadStream(filePath);
    const res = await this.#send('PUT', path, {
      ...options,
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: options.bytesPerSecond ? file.pipe(throttle(options.bytesPerSecond)) : file,
      contentLength: size,
    });
    try {
      return (await unwrap(res, await readBody(res, MAX_JSON_BYTES), 'PUT', path)) as T;
    } catch (err) {
      throw networkError(err, 'PUT', path);
    }
  }

  /** Opens a streamed GET; a non-2xx reply is read and thrown as a MasterError. */
  async download(path: string, options: RequestOptions = {}): Promise<Download> {
    const res = await this.#send('GET', path, { ...options, headers: { accept: '*/*', ...options.headers } });
    const status = res.statusCode ?? 0;
    if (status < 200 || status >= 300) {
      try {
        await unwrap(res, await readBody(res, MAX_JSON_BYTES), 'GET', path);
      } catch (err) {
        throw networkError(err, 'GET', path);
      }
    }
    return { stream: res, headers: res.headers };
  }
}
