import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * A stand-in for the parts of Google that the google_drive storage provider talks to, written
 * from Google's public API documentation and faithful to its wire format:
 *
 * OAuth 2.0 (https://developers.google.com/identity/protocols/oauth2/web-server)
 * - GET  /o/oauth2/v2/auth   consent (always granted for the configured user): 302 to redirect_uri?code&state&scope
 * - POST /token              grant_type=authorization_code | refresh_token; errors as {"error","error_description"}
 *
 * Drive API v3 (https://developers.google.com/workspace/drive/api/reference/rest/v3)
 * - GET    /drive/v3/about                  fields required (400 otherwise): user, storageQuota
 * - GET    /drive/v3/files                  q (subset below), fields, pageSize (1..1000), pageToken
 * - POST   /drive/v3/files                  metadata-only create (folders)
 * - GET    /drive/v3/files/{id}             metadata (fields) or alt=media with Range (206 / 416)
 * - DELETE /drive/v3/files/{id}             permanent delete, folders with their contents; 204
 * - POST   /upload/drive/v3/files           uploadType=multipart | media (<= 5 MiB) | resumable (-> Location)
 * - PUT    <session URI>                    Content-Range chunks; 308 + Range while incomplete, 200 + file when done;
 *                                           non-final chunks must be multiples of 256 KiB; `bytes * /N` asks the status
 *
 * `q` subset: `name = '..'`, `name != '..'`, `mimeType = '..'`, `mimeType != '..'`, `'<id>' in parents`,
 * `trashed = true|false`, combined with and/or/not and parentheses; strings escape `'` and `\` with `\`.
 * Anything else is answered 400 like Google answers an invalid query. `fields` is honoured (partial
 * responses, nested `a(b,c)`), unknown field names are 400.
 *
 * Drive calls require `Authorization: Bearer <access token from /token>` (401 otherwise); session URIs
 * are their own credential, as in Drive. A file exists only once its upload completed. Contents live in
 * a temp directory on disk, metadata in memory. Faults can be injected per operation.
 */

export const FOLDER_MIME = 'application/vnd.google-apps.folder';
const MULTIPART_LIMIT = 5 * 1024 * 1024;
const JSON_LIMIT = 1024 * 1024;
const CHUNK_GRANULE = 256 * 1024;
const CODE_TTL_MS = 10 * 60_000;

export type FaultOp =
  | 'token'
  | 'about'
  | 'files.list'
  | 'files.get'
  | 'files.media'
  | 'files.create'
  | 'files.delete'
  | 'upload.start'
  | 'upload.chunk'
  | 'upload.multipart';

export interface Fault {
  /** Answer with this HTTP status (and a Google-style error body)... */
  status?: number;
  /** ...whose `errors[0].reason` is this (e.g. `rateLimitExceeded`, `backendError`). */
  reason?: string;
  /** Or: take this many bytes of the request (uploads) or response (media), then cut the connection. */
  cutAfterBytes?: number;
  /** How many matching requests fail; default 1. */
  times?: number;
}

export interface StandInUser {
  displayName: string;
  emailAddress: string;
  photoLink: string;
}

export interface GoogleStandInOptions {
  clientId?: string;
  clientSecret?: string;
  /** When given, the consent page refuses other redirect URIs (as Google does for unregistered ones). */
  redirectUris?: string[];
  user?: StandInUser;
  /** Drive's storage limit in bytes; null = unlimited (no `limit` in about.storageQuota). */
  quotaLimitBytes?: number | null;
  /** Caps files.list pages below Google's 1000, to exercise pagination. */
  maxPageSize?: number;
  accessTokenTtlSeconds?: number;
}

export interface StoredItem {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  size: number;
  md5Checksum?: string;
  createdTime: string;
  modifiedTime: string;
  seq: number;
}

interface Session {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  declared?: number;
  received: number;
  path: string;
  md5: Hash;
  fields: string | null;
  busy: boolean;
}

interface Code {
  clientId: string;
  redirectUri: string;
  scope: string;
  expiresAt: number;
  used: boolean;
  offline: boolean;
  refresh: boolean;
}
interface Access {
  refreshToken: string | null;
  expiresAt: number;
  scope: string;
}

class HttpFailure extends Error {
  readonly status: number;
  readonly reason: string;
  readonly extra: Record<string, string>;
  constructor(status: number, reason: string, message: string, extra: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.reason = reason;
    this.extra = extra;
  }
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

function driveId(): string {
  // Drive ids: 33 characters of [A-Za-z0-9_-], starting with 1 for My Drive items.
  return `1${randomBytes(24).toString('base64url').slice(0, 32)}`;
}

function notFound(id: string): HttpFailure {
  return new HttpFailure(404, 'notFound', `File not found: ${id}.`, { location: 'fileId', locationType: 'parameter' });
}

function invalid(location: string, message = 'Invalid Value'): HttpFailure {
  return new HttpFailure(400, 'invalid', message, { location, locationType: 'parameter' });
}

// ---- fields: partial responses --------------------------------------------------------------

type FieldTree = Map<string, FieldTree | true>;

function parseFields(text: string): FieldTree {
  let i = 0;
  const parseList = (depth: number): FieldTree => {
    const tree: FieldTree = new Map();
    for (;;) {
      while (text[i] === ' ') i++;
      const start = i;
      while (i < text.length && /[A-Za-z0-9_*]/.test(text[i]!)) i++;
      const name = text.slice(start, i);
      if (!name) throw invalid('fields', `Invalid field selection ${text}`);
      while (text[i] === ' ') i++;
      if (text[i] === '(') {
        i++;
        tree.set(name, parseList(depth + 1));
        if (text[i] !== ')') throw invalid('fields', `Invalid field selection ${text}`);
        i++;
      } else {
        tree.set(name, true);
      }
      while (text[i] === ' ') i++;
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (depth > 0 && text[i] === ')') return tree;
      if (depth === 0 && i === text.length) return tree;
      throw invalid('fields', `Invalid field selection ${text}`);
    }
  };
  return parseList(0);
}

/** Applies a field selection; `known` lists what the resource has, so typos are 400 as in Drive. */
function select(
  value: Record<string, unknown>,
  tree: FieldTree | undefined,
  known: Record<string, Record<string, unknown> | true>,
): Record<string, unknown> {
  if (!tree || tree.has('*')) return value;
  const out: Record<string, unknown> = {};
  for (const [name, sub] of tree) {
    const schema = known[name];
    if (!schema) throw invalid('fields', `Invalid field selection ${name}`);
    const v = value[name];
    if (v === undefined) continue;
    if (sub === true || schema === true) out[name] = v;
    else if (Array.isArray(v))
      out[name] = v.map((e) =>
        select(e as Record<string, unknown>, sub, schema as Record<string, Record<string, unknown> | true>),
      );
    else
      out[name] = select(v as Record<string, unknown>, sub, schema as Record<string, Record<string, unknown> | true>);
  }
  return out;
}

const FILE_KEYS: Record<string, true> = Object.fromEntries(
  [
    'kind',
    'id',
    'name',
    'mimeType',
    'parents',
    'size',
    'md5Checksum',
    'createdTime',
    'modifiedTime',
    'trashed',
    'explicitlyTrashed',
    'ownedByMe',
    'capabilities',
  ].map((k) => [k, true]),
) as Record<string, true>;
const LIST_KEYS = { kind: true, nextPageToken: true, incompleteSearch: true, files: FILE_KEYS } as const;
const ABOUT_KEYS = {
  kind: true,
  user: { kind: true, displayName: true, photoLink: true, me: true, permissionId: true, emailAddress: true },
  storageQuota: { limit: true, usage: true, usageInDrive: true, usageInDriveTrash: true },
} as const;

// ---- q: the query language subset --------------------------------------------------------------

type Token = { t: 'str'; v: string } | { t: 'word'; v: string } | { t: 'op'; v: string } | { t: 'paren'; v: '(' | ')' };
type Predicate = (item: StoredItem) => boolean;

function tokenize(q: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'") {
      let v = '';
      i++;
      for (;;) {
        if (i >= q.length) throw invalid('q');
        const d = q[i]!;
        if (d === '\\') {
          if (i + 1 >= q.length) throw invalid('q');
          v += q[i + 1];
          i += 2;
          continue;
        }
        if (d === "'") {
          i++;
          break;
        }
        v += d;
        i++;
      }
      tokens.push({ t: 'str', v });
    } else if (c === '(' || c === ')') {
      tokens.push({ t: 'paren', v: c });
      i++;
    } else if (c === '!' && q[i + 1] === '=') {
      tokens.push({ t: 'op', v: '!=' });
      i += 2;
    } else if (c === '=') {
      tokens.push({ t: 'op', v: '=' });
      i++;
    } else if (/[A-Za-z]/.test(c)) {
      const start = i;
      while (i < q.length && /[A-Za-z0-9_]/.test(q[i]!)) i++;
      tokens.push({ t: 'word', v: q.slice(start, i) });
    } else {
      throw invalid('q');
    }
  }
  return tokens;
}

function parseQuery(q: string, rootId: string): Predicate {
  const tokens = tokenize(q);
  let i = 0;
  const peek = () => tokens[i];
  const word = (v: string) => peek()?.t === 'word' && peek()!.v === v;
  const expect = <T extends Token['t']>(t: T): Extract<Token, { t: T }> => {
    const tok = tokens[i++];
    if (!tok || tok.t !== t) throw invalid('q');
    return tok as Extract<Token, { t: T }>;
  };
  const orExpr = (): Predicate => {
    let left = andExpr();
    while (word('or')) {
      i++;
      const l = left;
      const r = andExpr();
      left = (f) => l(f) || r(f);
    }
    return left;
  };
  const andExpr = (): Predicate => {
    let left = unary();
    while (word('and')) {
      i++;
      const l = left;
      const r = unary();
      left = (f) => l(f) && r(f);
    }
    return left;
  };
  const unary = (): Predicate => {
    if (word('not')) {
      i++;
      const inner = unary();
      return (f) => !inner(f);
    }
    if (peek()?.t === 'paren' && peek()!.v === '(') {
      i++;
      const inner = orExpr();
      const close = expect('paren');
      if (close.v !== ')') throw invalid('q');
      return inner;
    }
    return term();
  };
  const term = (): Predicate => {
    const first = tokens[i++];
    if (!first) throw invalid('q');
    if (first.t === 'str') {
      if (!word('in')) throw invalid('q');
      i++;
      if (!word('parents')) throw invalid('q');
      i++;
      const id = first.v === 'root' ? rootId : first.v;
      return (f) => f.parents.includes(id);
    }
    if (first.t !== 'word') throw invalid('q');
    const op = expect('op').v;
    const negate = (p: Predicate): Predicate => (op === '!=' ? (f) => !p(f) : p);
    if (first.v === 'name' || first.v === 'mimeType') {
      const value = expect('str').v;
      const field = first.v;
      return negate((f) => f[field] === value);
    }
    if (first.v === 'trashed') {
      const value = expect('word').v;
      if (value !== 'true' && value !== 'false') throw invalid('q');
      return negate(() => value === 'false'); // nothing here is ever in the trash
    }
    throw invalid('q');
  };
  const predicate = orExpr();
  if (i !== tokens.length) throw invalid('q');
  return predicate;
}

// ---- the server -----------------------------------------------------------------------------------

export class GoogleStandIn {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly user: StandInUser;
  readonly rootId = `0A${randomBytes(12).toString('base64url')}Uk9PVA`;
  /** What the stand-in saw, for assertions. */
  readonly stats = {
    uploadBytesReceived: 0,
    chunkPuts: 0,
    sessionsStarted: 0,
    multipartUploads: 0,
    metadataCreates: 0,
    deletes: 0,
    tokenGrants: 0,
    tokenRefreshes: 0,
    unauthorised: 0,
  };
  /** Drive's storage limit; null = unlimited. */
  quotaLimitBytes: number | null;
  /** The consent page answers `error=access_denied` while this is true. */
  denyConsent = false;
  /** Serve media whole (200) even when a Range is asked for, like a proxy that drops the header. */
  ignoreRange = false;
  /** When set, the user grants only these of the requested scopes (Google's granular consent). */
  grantOnly: string[] | null = null;

  readonly #options: GoogleStandInOptions;
  readonly #server: Server;
  readonly #dir: string;
  #url = '';
  #seq = 0;
  readonly #items = new Map<string, StoredItem>();
  readonly #sessions = new Map<string, Session>();
  readonly #finished = new Map<string, { fileId: string; fields: string | null }>();
  readonly #codes = new Map<string, Code>();
  readonly #refreshTokens = new Map<string, { clientId: string; scope: string; revoked: boolean }>();
  readonly #accessTokens = new Map<string, Access>();
  readonly #granted = new Set<string>();
  readonly #faults = new Map<FaultOp, Fault[]>();

  private constructor(dir: string, options: GoogleStandInOptions) {
    this.#dir = dir;
    this.#options = options;
    this.clientId = options.clientId ?? '123456789012-standin.apps.googleusercontent.com';
    this.clientSecret = options.clientSecret ?? `GOCSPX-${randomBytes(18).toString('base64url')}`;
    this.user = options.user ?? {
      displayName: 'Stand-in Tester',
      emailAddress: 'tester@example.test',
      photoLink: 'https://lh3.googleusercontent.com/a/stand-in=s64',
    };
    this.quotaLimitBytes = options.quotaLimitBytes === undefined ? 15 * 1024 ** 3 : options.quotaLimitBytes;
    const now = new Date().toISOString();
    this.#items.set(this.rootId, {
      id: this.rootId,
      name: 'My Drive',
      mimeType: FOLDER_MIME,
      parents: [],
      size: 0,
      createdTime: now,
      modifiedTime: now,
      seq: this.#seq++,
    });
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        if (!res.headersSent)
          this.#driveError(res, new HttpFailure(500, 'backendError', `Internal Error: ${(err as Error).message}`));
        else res.destroy();
      });
    });
  }

  static async start(options: GoogleStandInOptions = {}): Promise<GoogleStandIn> {
    const dir = await mkdtemp(join(tmpdir(), 'backplane-google-stand-in-'));
    await mkdir(join(dir, 'blobs'));
    await mkdir(join(dir, 'sessions'));
    const standIn = new GoogleStandIn(dir, options);
    await new Promise<void>((resolve, reject) => {
      standIn.#server.once('error', reject);
      standIn.#server.listen(0, '127.0.0.1', () => resolve());
    });
    standIn.#url = `http://127.0.0.1:${(standIn.#server.address() as AddressInfo).port}`;
    return standIn;
  }

  get url(): string {
    return this.#url;
  }
  get authUrl(): string {
    return `${this.#url}/o/oauth2/v2/auth`;
  }
  get tokenUrl(): string {
    return `${this.#url}/token`;
  }
  get apiUrl(): string {
    return `${this.#url}/`;
  }
  /** Upload sessions started but not finished. */
  get openSessions(): number {
    return this.#sessions.size;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
    await rm(this.#dir, { recursive: true, force: true });
  }

  // ---- test controls ----

  /** A refresh token as if the user had consented (skips the browser part of the flow). */
  grant(scope = 'https://www.googleapis.com/auth/drive.file'): string {
    const token = `1//0${randomBytes(30).toString('base64url')}`;
    this.#refreshTokens.set(token, { clientId: this.clientId, scope, revoked: false });
    return token;
  }

  /** Revokes a refresh token and every access token issued from it (the user removed the app). */
  revoke(refreshToken: string): void {
    const entry = this.#refreshTokens.get(refreshToken);
    if (entry) entry.revoked = true;
    for (const [token, access] of this.#accessTokens)
      if (access.refreshToken === refreshToken) this.#accessTokens.delete(token);
  }

  /** Makes every issued access token invalid now (they expired early). */
  expireAccessTokens(): void {
    this.#accessTokens.clear();
  }

  /** Makes the next `times` requests of `op` fail as described. */
  fail(op: FaultOp, fault: Fault): void {
    const list = this.#faults.get(op) ?? [];
    list.push({ ...fault, times: fault.times ?? 1 });
    this.#faults.set(op, list);
  }

  clearFaults(): void {
    this.#faults.clear();
  }

  /** Every stored item (not the root) with its path from My Drive, e.g. `Backplane/a/b.bin`. */
  items(): (StoredItem & { path: string })[] {
    return [...this.#items.values()]
      .filter((i) => i.id !== this.rootId)
      .sort((a, b) => a.seq - b.seq)
      .map((i) => ({ ...i, path: this.#pathOf(i) }));
  }

  /** Creates a file directly (as another client would), for tests of duplicates and foreign items. */
  async putItem(
    parentId: string,
    name: string,
    content: Buffer | null,
    mimeType = content === null ? FOLDER_MIME : 'application/octet-stream',
  ): Promise<StoredItem> {
    const item = this.#newItem(name, mimeType, [parentId === 'root' ? this.rootId : parentId], content?.length ?? 0);
    if (content !== null) {
      item.md5Checksum = createHash('md5').update(content).digest('hex');
      await writeFile(this.#blob(item.id), content);
    }
    this.#items.set(item.id, item);
    return item;
  }

  /** Deletes an item (and what is below it) directly, as the user would in the Drive UI. */
  async removeItem(id: string): Promise<void> {
    const doomed = [...this.#items.values()].filter((i) => i.id === id);
    for (let i = 0; i < doomed.length; i++) {
      for (const child of this.#items.values()) if (child.parents.includes(doomed[i]!.id)) doomed.push(child);
    }
    for (const d of doomed) {
      this.#items.delete(d.id);
      if (d.mimeType !== FOLDER_MIME) await unlink(this.#blob(d.id)).catch(() => undefined);
    }
  }

  // ---- plumbing ----

  #pathOf(item: StoredItem): string {
    const names: string[] = [];
    let current: StoredItem | undefined = item;
    for (let depth = 0; current && current.id !== this.rootId && depth < 10_000; depth++) {
      names.unshift(current.name);
      current = this.#items.get(current.parents[0] ?? '');
    }
    return names.join('/');
  }

  #blob(id: string): string {
    return join(this.#dir, 'blobs', id);
  }

  #newItem(name: string, mimeType: string, parents: string[], size: number): StoredItem {
    const now = new Date().toISOString();
    return { id: driveId(), name, mimeType, parents, size, createdTime: now, modifiedTime: now, seq: this.#seq++ };
  }

  #takeFault(op: FaultOp): Fault | undefined {
    const list = this.#faults.get(op);
    const fault = list?.[0];
    if (!fault) return undefined;
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) list.shift();
    return fault;
  }

  #json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body, null, 1);
    res.writeHead(status, {
      'content-type': 'application/json; charset=UTF-8',
      'content-length': String(Buffer.byteLength(text)),
      ...headers,
    });
    res.end(text);
  }

  #driveError(res: ServerResponse, failure: HttpFailure): void {
    const error: Record<string, unknown> = {
      code: failure.status,
      message: failure.message,
      errors: [{ message: failure.message, domain: 'global', reason: failure.reason, ...failure.extra }],
    };
    if (failure.status === 401) error.status = STATUS_NAMES[401];
    this.#json(
      res,
      failure.status,
      { error },
      failure.status === 401
        ? { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' }
        : {},
    );
  }

  #faultFailure(fault: Fault): HttpFailure {
    const status = fault.status ?? 500;
    const reason =
      fault.reason ??
      (status === 429
        ? 'rateLimitExceeded'
        : status >= 500
          ? 'backendError'
          : status === 403
            ? 'forbidden'
            : 'badRequest');
    const message =
      status >= 500
        ? 'Backend Error'
        : status === 429
          ? 'Rate Limit Exceeded'
          : reason === 'storageQuotaExceeded'
            ? "The user's Drive storage quota has been exceeded."
            : reason;
    return new HttpFailure(status, reason, message);
  }

  async #body(req: IncomingMessage, limit: number): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new HttpFailure(413, 'uploadTooLarge', 'The request is too large.');
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  async #jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const raw = (await this.#body(req, JSON_LIMIT)).toString('utf8');
    if (raw.trim() === '') return {};
    try {
      const parsed = JSON.parse(raw) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
      return parsed as Record<string, unknown>;
    } catch {
      throw new HttpFailure(400, 'parseError', 'Parse Error');
    }
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.#url);
    const path = url.pathname;
    const method = req.method ?? 'GET';
    if (path === '/o/oauth2/v2/auth' && method === 'GET') return this.#consent(url, res);
    if (path === '/token' && method === 'POST') return this.#token(req, res);
    if (!path.startsWith('/drive/v3/') && !path.startsWith('/upload/drive/v3/')) {
      res.writeHead(404, { 'content-type': 'text/html; charset=UTF-8' });
      res.end('<!DOCTYPE html><title>Error 404 (Not Found)!!1</title>');
      return;
    }
    try {
      // A resumable session URI is the credential for its chunks.
      if (path === '/upload/drive/v3/files' && method === 'PUT' && url.searchParams.has('upload_id'))
        return await this.#chunk(url, req, res);
      this.#authorise(req);
      if (path === '/drive/v3/about' && method === 'GET') return this.#about(url, res);
      if (path === '/drive/v3/files' && method === 'GET') return this.#list(url, res);
      if (path === '/drive/v3/files' && method === 'POST') return await this.#create(url, req, res);
      if (path === '/upload/drive/v3/files' && method === 'POST') return await this.#upload(url, req, res);
      const match = /^\/drive\/v3\/files\/([^/]+)$/.exec(path);
      if (match) {
        const id = decodeURIComponent(match[1]!);
        if (method === 'GET' && url.searchParams.get('alt') === 'media') return await this.#media(id, req, res);
        if (method === 'GET') return this.#get(id, url, res);
        if (method === 'DELETE') return await this.#delete(id, res);
      }
      throw new HttpFailure(404, 'notFound', 'Not Found');
    } catch (err) {
      if (!(err instanceof HttpFailure)) throw err;
      req.resume(); // drain what the client still sends
      this.#driveError(res, err);
    }
  }

  #failIfFaulty(op: FaultOp): void {
    const fault = this.#takeFault(op);
    if (fault && fault.cutAfterBytes === undefined) throw this.#faultFailure(fault);
  }

  // ---- OAuth ----

  #consent(url: URL, res: ServerResponse): void {
    const p = url.searchParams;
    const page = (status: number, error: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=UTF-8' });
      res.end(
        `<!DOCTYPE html><title>Error ${status}: ${error}</title><p>Access blocked: Authorization Error</p><p>Error ${status}: ${error}</p>`,
      );
    };
    if (p.get('client_id') !== this.clientId) return page(401, 'invalid_client');
    const redirectUri = p.get('redirect_uri');
    if (!redirectUri || !/^https?:\/\//.test(redirectUri)) return page(400, 'invalid_request');
    if (this.#options.redirectUris && !this.#options.redirectUris.includes(redirectUri))
      return page(400, 'redirect_uri_mismatch');
    if (p.get('response_type') !== 'code') return page(400, 'unsupported_response_type');
    const requested = p.get('scope') ?? '';
    if (requested.trim() === '') return page(400, 'invalid_request');
    const scope =
      this.grantOnly === null
        ? requested
        : requested
            .split(' ')
            .filter((s) => this.grantOnly!.includes(s))
            .join(' ');
    const back = new URL(redirectUri);
    const state = p.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (this.denyConsent) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = `4/0${randomBytes(36).toString('base64url')}`;
      const offline = p.get('access_type') === 'offline';
      const consent = (p.get('prompt') ?? '').split(' ').includes('consent');
      // Google issues a refresh token on the first offline grant, and again only with prompt=consent.
      const refresh = offline && (consent || !this.#granted.has(this.clientId));
      if (offline) this.#granted.add(this.clientId);
      this.#codes.set(code, {
        clientId: this.clientId,
        redirectUri,
        scope,
        expiresAt: Date.now() + CODE_TTL_MS,
        used: false,
        offline,
        refresh,
      });
      back.searchParams.set('code', code);
      back.searchParams.set('scope', scope);
    }
    res.writeHead(302, { location: back.href, 'content-length': '0' });
    res.end();
  }

  async #token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = (await this.#body(req, JSON_LIMIT)).toString('utf8');
    const type = req.headers['content-type'] ?? '';
    const form = type.includes('application/json')
      ? new URLSearchParams(JSON.parse(raw || '{}') as Record<string, string>)
      : new URLSearchParams(raw);
    const oauthError = (status: number, error: string, description: string) =>
      this.#json(res, status, { error, error_description: description }, { 'cache-control': 'no-store' });
    const fault = this.#takeFault('token');
    if (fault) return oauthError(fault.status ?? 500, fault.reason ?? 'internal_failure', 'Stand-in fault');
    let clientId = form.get('client_id');
    let clientSecret = form.get('client_secret');
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      clientSecret = decodeURIComponent(secret ?? '');
    }
    if (clientId !== this.clientId) return oauthError(401, 'invalid_client', 'The OAuth client was not found.');
    if (clientSecret !== this.clientSecret) return oauthError(401, 'invalid_client', 'Unauthorized');
    const grantType = form.get('grant_type');
    if (grantType === 'authorization_code') {
      const codeText = form.get('code') ?? '';
      const code = this.#codes.get(codeText);
      if (!code || code.used || code.expiresAt < Date.now() || code.clientId !== clientId)
        return oauthError(400, 'invalid_grant', 'Bad Request');
      if (form.get('redirect_uri') !== code.redirectUri) return oauthError(400, 'redirect_uri_mismatch', 'Bad Request');
      code.used = true;
      this.stats.tokenGrants++;
      let refreshToken: string | null = null;
      if (code.refresh) {
        refreshToken = this.grant(code.scope);
      }
      const access = this.#issueAccess(refreshToken, code.scope);
      return this.#json(
        res,
        200,
        { ...access, ...(refreshToken ? { refresh_token: refreshToken } : {}) },
        { 'cache-control': 'no-store' },
      );
    }
    if (grantType === 'refresh_token') {
      const token = form.get('refresh_token') ?? '';
      const entry = this.#refreshTokens.get(token);
      if (!entry || entry.revoked || entry.clientId !== clientId)
        return oauthError(400, 'invalid_grant', 'Token has been expired or revoked.');
      this.stats.tokenRefreshes++;
      return this.#json(res, 200, this.#issueAccess(token, entry.scope), { 'cache-control': 'no-store' });
    }
    return oauthError(400, 'unsupported_grant_type', `Invalid grant_type: ${grantType ?? ''}`);
  }

  #issueAccess(
    refreshToken: string | null,
    scope: string,
  ): { access_token: string; expires_in: number; scope: string; token_type: 'Bearer' } {
    const ttl = this.#options.accessTokenTtlSeconds ?? 3599;
    const token = `ya29.${randomBytes(48).toString('base64url')}`;
    this.#accessTokens.set(token, { refreshToken, expiresAt: Date.now() + ttl * 1000, scope });
    return { access_token: token, expires_in: ttl, scope, token_type: 'Bearer' };
  }

  #authorise(req: IncomingMessage): void {
    const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const access = match ? this.#accessTokens.get(match[1]!) : undefined;
    if (!access || access.expiresAt <= Date.now()) {
      this.stats.unauthorised++;
      throw new HttpFailure(
        401,
        'authError',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. ' +
          'See https://developers.google.com/identity/sign-in/web/devconsole-project.',
        { location: 'Authorization', locationType: 'header' },
      );
    }
  }

  // ---- Drive: metadata ----

  #usage(): number {
    let used = 0;
    for (const item of this.#items.values()) used += item.size;
    return used;
  }

  #about(url: URL, res: ServerResponse): void {
    this.#failIfFaulty('about');
    const fields = url.searchParams.get('fields');
    if (!fields)
      throw new HttpFailure(400, 'required', "The 'fields' parameter is required for this operation.", {
        location: 'fields',
        locationType: 'parameter',
      });
    const used = String(this.#usage());
    const about = {
      kind: 'drive#about',
      user: {
        kind: 'drive#user',
        displayName: this.user.displayName,
        photoLink: this.user.photoLink,
        me: true,
        permissionId: '01234567890123456789',
        emailAddress: this.user.emailAddress,
      },
      storageQuota: {
        ...(this.quotaLimitBytes === null ? {} : { limit: String(this.quotaLimitBytes) }),
        usage: used,
        usageInDrive: used,
        usageInDriveTrash: '0',
      },
    };
    this.#json(
      res,
      200,
      select(about, parseFields(fields), ABOUT_KEYS as unknown as Record<string, Record<string, unknown> | true>),
    );
  }

  #fileJson(item: StoredItem): Record<string, unknown> {
    const folder = item.mimeType === FOLDER_MIME;
    return {
      kind: 'drive#file',
      id: item.id,
      name: item.name,
      mimeType: item.mimeType,
      parents: item.parents,
      ...(folder ? {} : { size: String(item.size), md5Checksum: item.md5Checksum }),
      createdTime: item.createdTime,
      modifiedTime: item.modifiedTime,
      trashed: false,
      explicitlyTrashed: false,
      ownedByMe: true,
    };
  }

  #fileOut(item: StoredItem, fields: string | null): Record<string, unknown> {
    const json = this.#fileJson(item);
    if (!fields) return { kind: json.kind, id: json.id, name: json.name, mimeType: json.mimeType };
    return select(json, parseFields(fields), FILE_KEYS);
  }

  #resolve(id: string): StoredItem {
    const item = this.#items.get(id === 'root' ? this.rootId : id);
    if (!item) throw notFound(id);
    return item;
  }

  #list(url: URL, res: ServerResponse): void {
    this.#failIfFaulty('files.list');
    const p = url.searchParams;
    const pageSizeText = p.get('pageSize');
    const pageSize = pageSizeText === null ? 100 : Number(pageSizeText);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
      throw invalid('pageSize', `Invalid value '${pageSizeText}'. Values must be within the range: [1, 1000]`);
    const effective = Math.min(pageSize, this.#options.maxPageSize ?? 1000);
    const q = p.get('q');
    const predicate = q ? parseQuery(q, this.rootId) : () => true;
    let offset = 0;
    const pageToken = p.get('pageToken');
    if (pageToken) {
      try {
        const parsed = JSON.parse(Buffer.from(pageToken, 'base64url').toString('utf8')) as {
          o: number;
          q: string | null;
        };
        if (parsed.q !== q || !Number.isInteger(parsed.o) || parsed.o < 0) throw new Error('mismatch');
        offset = parsed.o;
      } catch {
        throw invalid('pageToken');
      }
    }
    const matching = [...this.#items.values()]
      .filter((i) => i.id !== this.rootId && predicate(i))
      .sort((a, b) => a.seq - b.seq);
    const page = matching.slice(offset, offset + effective);
    const next =
      offset + effective < matching.length
        ? Buffer.from(JSON.stringify({ o: offset + effective, q })).toString('base64url')
        : undefined;
    const body = {
      kind: 'drive#fileList',
      ...(next ? { nextPageToken: next } : {}),
      incompleteSearch: false,
      files: page.map((i) => this.#fileJson(i)),
    };
    const fields = p.get('fields');
    if (!fields) {
      this.#json(res, 200, { ...body, files: page.map((i) => this.#fileOut(i, null)) });
      return;
    }
    this.#json(
      res,
      200,
      select(body, parseFields(fields), LIST_KEYS as unknown as Record<string, Record<string, unknown> | true>),
    );
  }

  #get(id: string, url: URL, res: ServerResponse): void {
    this.#failIfFaulty('files.get');
    this.#json(res, 200, this.#fileOut(this.#resolve(id), url.searchParams.get('fields')));
  }

  /** Parents from request metadata: default My Drive, exactly one, an existing folder. */
  #parents(value: unknown): string[] {
    if (value === undefined || value === null) return [this.rootId];
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalid('parents');
    if (value.length === 0) return [this.rootId];
    if (value.length > 1)
      throw new HttpFailure(403, 'cannotAddParent', 'Increasing the number of parents is not allowed.');
    const parent = this.#resolve(value[0] as string);
    if (parent.mimeType !== FOLDER_MIME) throw new HttpFailure(400, 'invalid', 'The specified parent is not a folder.');
    return [parent.id];
  }

  #metadata(body: Record<string, unknown>): { name: string; mimeType: string | undefined; parents: string[] } {
    const name = body.name === undefined ? 'Untitled' : body.name;
    if (typeof name !== 'string') throw invalid('name');
    const mimeType = body.mimeType;
    if (mimeType !== undefined && typeof mimeType !== 'string') throw invalid('mimeType');
    return { name, mimeType, parents: this.#parents(body.parents) };
  }

  async #create(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#failIfFaulty('files.create');
    const meta = this.#metadata(await this.#jsonBody(req));
    this.stats.metadataCreates++;
    const item = this.#newItem(meta.name, meta.mimeType ?? 'application/octet-stream', meta.parents, 0);
    if (item.mimeType !== FOLDER_MIME) {
      item.md5Checksum = createHash('md5').digest('hex');
      await writeFile(this.#blob(item.id), '');
    }
    this.#items.set(item.id, item);
    this.#json(res, 200, this.#fileOut(item, url.searchParams.get('fields')));
  }

  async #delete(id: string, res: ServerResponse): Promise<void> {
    this.#failIfFaulty('files.delete');
    const item = this.#resolve(id);
    if (item.id === this.rootId)
      throw new HttpFailure(
        403,
        'insufficientFilePermissions',
        'The user does not have sufficient permissions for this file.',
      );
    this.stats.deletes++;
    await this.removeItem(item.id);
    res.writeHead(204);
    res.end();
  }

  async #media(id: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault = this.#takeFault('files.media');
    if (fault && fault.cutAfterBytes === undefined) throw this.#faultFailure(fault);
    const item = this.#resolve(id);
    if (item.mimeType === FOLDER_MIME || item.mimeType.startsWith('application/vnd.google-apps.')) {
      throw new HttpFailure(
        403,
        'fileNotDownloadable',
        'Only files with binary content can be downloaded. Use Export with Docs Editors files.',
        { location: 'alt', locationType: 'parameter' },
      );
    }
    let start = 0;
    let end = item.size - 1;
    let status = 200;
    const range = this.ignoreRange ? undefined : req.headers.range;
    if (range !== undefined) {
      const m = /^bytes=(\d*)-(\d*)$/.exec(range.trim());
      if (m && (m[1] !== '' || m[2] !== '')) {
        if (m[1] === '') {
          start = Math.max(0, item.size - Number(m[2]));
        } else {
          start = Number(m[1]);
          if (m[2] !== '') end = Math.min(Number(m[2]), item.size - 1);
        }
        if (start >= item.size || (m[1] !== '' && m[2] !== '' && Number(m[2]) < start)) {
          res.writeHead(416, { 'content-range': `bytes */${item.size}`, 'content-type': 'text/html; charset=UTF-8' });
          res.end('Requested range not satisfiable');
          return;
        }
        status = 206;
      }
    }
    const length = Math.max(0, end - start + 1);
    res.writeHead(status, {
      'content-type': item.mimeType,
      'content-length': String(length),
      'accept-ranges': 'bytes',
      ...(status === 206 ? { 'content-range': `bytes ${start}-${end}/${item.size}` } : {}),
    });
    if (length === 0) {
      res.end();
      return;
    }
    const file = createReadStream(this.#blob(item.id), { start, end });
    if (fault?.cutAfterBytes !== undefined) {
      let sent = 0;
      const cut = fault.cutAfterBytes;
      for await (const chunk of file as AsyncIterable<Buffer>) {
        const piece = chunk.subarray(0, Math.max(0, cut - sent));
        if (piece.length) res.write(piece);
        sent += piece.length;
        if (sent >= cut) break;
      }
      file.destroy();
      res.destroy();
      return;
    }
    await pipeline(file, res).catch(() => undefined);
  }

  // ---- Drive: uploads ----

  #checkQuota(extra: number): void {
    if (this.quotaLimitBytes !== null && this.#usage() + extra > this.quotaLimitBytes) {
      throw new HttpFailure(403, 'storageQuotaExceeded', "The user's Drive storage quota has been exceeded.");
    }
  }

  async #upload(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const type = url.searchParams.get('uploadType');
    if (type === 'resumable') return this.#startSession(url, req, res);
    if (type !== 'multipart' && type !== 'media')
      throw invalid('uploadType', `Invalid value for uploadType: ${type ?? ''}`);
    this.#failIfFaulty('upload.multipart');
    const body = await this.#body(req, MULTIPART_LIMIT + 64 * 1024);
    let meta: { name: string; mimeType: string | undefined; parents: string[] };
    let content: Buffer;
    let contentType: string;
    if (type === 'media') {
      meta = { name: 'Untitled', mimeType: undefined, parents: [this.rootId] };
      content = body;
      contentType = req.headers['content-type'] ?? 'application/octet-stream';
    } else {
      const parts = this.#multipart(req.headers['content-type'] ?? '', body);
      const [metaPart, mediaPart] = parts;
      if (parts.length !== 2 || !metaPart || !mediaPart)
        throw new HttpFailure(400, 'badContent', 'Multipart upload requires exactly a metadata part and a media part.');
      let parsed: unknown;
      try {
        parsed = JSON.parse(metaPart.body.toString('utf8'));
      } catch {
        throw new HttpFailure(400, 'parseError', 'Parse Error');
      }
      meta = this.#metadata(parsed as Record<string, unknown>);
      content = mediaPart.body;
      contentType = mediaPart.type;
    }
    if (content.length > MULTIPART_LIMIT)
      throw new HttpFailure(
        413,
        'uploadTooLarge',
        'Multipart and simple uploads are limited to 5 MB; use a resumable upload.',
      );
    this.#checkQuota(content.length);
    this.stats.multipartUploads++;
    const item = this.#newItem(meta.name, meta.mimeType ?? contentType, meta.parents, content.length);
    item.md5Checksum = createHash('md5').update(content).digest('hex');
    await writeFile(this.#blob(item.id), content);
    this.#items.set(item.id, item);
    this.#json(res, 200, this.#fileOut(item, url.searchParams.get('fields')));
  }

  #multipart(contentType: string, body: Buffer): { type: string; body: Buffer }[] {
    const m = /^multipart\/related;\s*boundary="?([^";]+)"?/i.exec(contentType);
    if (!m) throw new HttpFailure(400, 'badContent', 'Media type is not multipart/related.');
    const delimiter = Buffer.from(`--${m[1]}`);
    const parts: { type: string; body: Buffer }[] = [];
    let pos = body.indexOf(delimiter);
    if (pos < 0) throw new HttpFailure(400, 'badContent', 'Malformed multipart body.');
    for (let guard = 0; guard < 16; guard++) {
      pos += delimiter.length;
      if (body.subarray(pos, pos + 2).toString() === '--') return parts;
      if (body.subarray(pos, pos + 2).toString() === '\r\n') pos += 2;
      const headerEnd = body.indexOf('\r\n\r\n', pos);
      const next = body.indexOf(delimiter, pos);
      if (headerEnd < 0 || next < 0 || headerEnd > next)
        throw new HttpFailure(400, 'badContent', 'Malformed multipart body.');
      const headers = body.subarray(pos, headerEnd).toString('utf8');
      const type = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? 'application/octet-stream';
      let end = next;
      if (body.subarray(end - 2, end).toString() === '\r\n') end -= 2;
      parts.push({ type, body: body.subarray(headerEnd + 4, end) });
      pos = next;
    }
    throw new HttpFailure(400, 'badContent', 'Too many multipart parts.');
  }

  async #startSession(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#failIfFaulty('upload.start');
    const meta = this.#metadata(await this.#jsonBody(req));
    const declaredText = req.headers['x-upload-content-length'];
    let declared: number | undefined;
    if (declaredText !== undefined) {
      declared = Number(declaredText);
      if (!Number.isSafeInteger(declared) || declared < 0)
        throw new HttpFailure(400, 'invalid', 'Invalid X-Upload-Content-Length.');
      this.#checkQuota(declared);
    }
    const id = `ABdT${randomBytes(30).toString('base64url')}`;
    const path = join(this.#dir, 'sessions', id);
    await writeFile(path, '');
    const contentType = (req.headers['x-upload-content-type'] as string | undefined) ?? 'application/octet-stream';
    this.#sessions.set(id, {
      id,
      name: meta.name,
      mimeType: meta.mimeType ?? contentType,
      parents: meta.parents,
      ...(declared === undefined ? {} : { declared }),
      received: 0,
      path,
      md5: createHash('md5'),
      fields: url.searchParams.get('fields'),
      busy: false,
    });
    this.stats.sessionsStarted++;
    const location = new URL('/upload/drive/v3/files', this.#url);
    location.searchParams.set('uploadType', 'resumable');
    location.searchParams.set('upload_id', id);
    res.writeHead(200, { location: location.href, 'x-guploader-uploadid': id, 'content-length': '0' });
    res.end();
  }

  #incomplete(res: ServerResponse, session: Session): void {
    res.statusMessage = 'Resume Incomplete';
    res.writeHead(308, {
      ...(session.received > 0 ? { range: `bytes=0-${session.received - 1}` } : {}),
      'content-length': '0',
      'x-guploader-uploadid': session.id,
    });
    res.end();
  }

  async #chunk(url: URL, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const id = url.searchParams.get('upload_id') ?? '';
    const session = this.#sessions.get(id);
    if (!session) {
      const finished = this.#finished.get(id);
      const item = finished ? this.#items.get(finished.fileId) : undefined;
      req.resume();
      // Asking a finished session again answers with its file (a lost final response is recoverable).
      if (item) return this.#json(res, 200, this.#fileOut(item, finished!.fields));
      throw new HttpFailure(404, 'notFound', 'No upload session with this id (it expired or never existed).');
    }
    if (session.busy) throw new HttpFailure(409, 'conflict', 'Another request is writing to this upload session.');
    const fault = this.#takeFault('upload.chunk');
    if (fault && fault.cutAfterBytes === undefined) throw this.#faultFailure(fault);
    this.stats.chunkPuts++;
    const rangeHeader = req.headers['content-range'];
    const lengthHeader = req.headers['content-length'];
    const length = lengthHeader === undefined ? undefined : Number(lengthHeader);
    let first: number;
    let last: number | undefined; // undefined: no bytes in this request
    let total: number | undefined;
    if (rangeHeader === undefined) {
      // A single request with the whole content.
      first = 0;
      if (length === undefined) throw new HttpFailure(411, 'required', 'Length Required');
      last = length > 0 ? length - 1 : undefined;
      total = length;
      if (session.received !== 0)
        throw new HttpFailure(400, 'invalid', 'A request without Content-Range must carry the whole content.');
    } else {
      const status = /^bytes \*\/(\d+|\*)$/.exec(rangeHeader.trim());
      const span = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(rangeHeader.trim());
      if (status) {
        first = session.received;
        last = undefined;
        total = status[1] === '*' ? undefined : Number(status[1]);
        if (length !== undefined && length !== 0)
          throw new HttpFailure(400, 'invalid', 'A status request has an empty body.');
      } else if (span) {
        first = Number(span[1]);
        last = Number(span[2]);
        total = span[3] === '*' ? undefined : Number(span[3]);
        if (last < first) throw new HttpFailure(400, 'invalid', 'Failed to parse Content-Range header.');
        if (length !== undefined && length !== last - first + 1)
          throw new HttpFailure(400, 'invalid', 'Content-Range and Content-Length disagree.');
        if (total !== undefined && last >= total)
          throw new HttpFailure(400, 'invalid', 'Failed to parse Content-Range header.');
      } else {
        throw new HttpFailure(400, 'invalid', 'Failed to parse Content-Range header.');
      }
    }
    if (total !== undefined && session.declared !== undefined && total !== session.declared) {
      throw new HttpFailure(
        400,
        'invalid',
        `The total size ${total} differs from the X-Upload-Content-Length ${session.declared} announced when the upload started.`,
      );
    }
    if (first > session.received) {
      throw new HttpFailure(
        400,
        'invalid',
        `Invalid request. According to the Content-Range header, the upload offset is ${first} byte(s), ` +
          `which exceeds already uploaded size of ${session.received} byte(s).`,
      );
    }
    const count = last === undefined ? 0 : last - first + 1;
    const final = total !== undefined && first + count >= total;
    if (!final && count % CHUNK_GRANULE !== 0) {
      throw new HttpFailure(
        400,
        'invalid',
        `Invalid request. The number of bytes uploaded is required to be equal or greater than ${CHUNK_GRANULE}, except for the final request ` +
          `(it's recommended to be the exact multiple of ${CHUNK_GRANULE}). ` +
          `The received request contained ${count} bytes, which does not meet this requirement.`,
      );
    }

    if (count > 0) {
      session.busy = true;
      const handle = await open(session.path, 'a');
      try {
        let position = first;
        let taken = 0;
        for await (const chunk of req as AsyncIterable<Buffer>) {
          let piece = chunk;
          if (fault?.cutAfterBytes !== undefined && taken + piece.length > fault.cutAfterBytes)
            piece = piece.subarray(0, Math.max(0, fault.cutAfterBytes - taken));
          taken += piece.length;
          // Bytes below what the session holds were sent before; only the new ones count.
          const skip = Math.max(0, session.received - position);
          if (skip < piece.length) {
            const fresh = piece.subarray(skip);
            await handle.write(fresh);
            session.md5.update(fresh);
            session.received += fresh.length;
            this.stats.uploadBytesReceived += fresh.length;
          }
          position += piece.length;
          if (fault?.cutAfterBytes !== undefined && taken >= fault.cutAfterBytes) {
            req.socket.destroy(); // the connection drops mid-chunk; what arrived stays
            return;
          }
        }
        if (position !== first + count)
          throw new HttpFailure(400, 'invalid', 'The request body is shorter than its Content-Range.');
      } catch (err) {
        if (err instanceof HttpFailure) throw err;
        return; // the client went away mid-chunk: keep what arrived, as Drive does
      } finally {
        await handle.close();
        session.busy = false;
      }
    } else {
      req.resume();
    }

    if (total !== undefined && session.received > total)
      throw new HttpFailure(400, 'invalid', 'More bytes arrived than the announced total.');
    if (total !== undefined && session.received === total) return this.#finish(session, res);
    this.#incomplete(res, session);
  }

  async #finish(session: Session, res: ServerResponse): Promise<void> {
    // The session stays usable if the file cannot be created (e.g. quota), as in Drive.
    for (const parent of session.parents) if (!this.#items.has(parent)) throw notFound(parent);
    this.#checkQuota(session.received);
    const item = this.#newItem(session.name, session.mimeType, session.parents, session.received);
    item.md5Checksum = session.md5.copy().digest('hex');
    await rename(session.path, this.#blob(item.id));
    this.#items.set(item.id, item);
    this.#sessions.delete(session.id);
    this.#finished.set(session.id, { fileId: item.id, fields: session.fields });
    this.#json(res, 200, this.#fileOut(item, session.fields));
  }
}
