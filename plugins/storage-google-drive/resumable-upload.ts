import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { OAuth2Client } from 'google-auth-library';
import type { drive_v3 } from '@googleapis/drive';
import { ProviderError } from '@backplane/plugin-api';
import { isRetryable, toProviderError } from './errors.ts';
import { ITEM_FIELDS, toItem, type DriveItem } from './drive-files.ts';
import { REQUEST_TIMEOUT_MS } from './google-client.ts';

/**
 * Drive's resumable upload protocol (uploadType=resumable), written against the HTTP API because
 * the Node client only offers single-request (multipart/media) uploads:
 *
 * 1. POST /upload/drive/v3/files?uploadType=resumable with the metadata -> 200 + Location: session URI.
 * 2. PUT the bytes to the session URI in chunks of a multiple of 256 KiB, each with
 *    `Content-Range: bytes <first>-<last>/<total>` where the total is `*` while unknown. Drive
 *    answers 308 with `Range: bytes=0-<n>` (what it holds so far). The last chunk carries the total
 *    and gets 200/201 with the file; an empty last chunk says `bytes *` + `/<total>`.
 * 3. After a network error or a 5xx, PUT an empty body with the range `*` (and the total, or `*`)
 *    to ask how much arrived, and carry on from there.
 *
 * The file exists in Drive only once the last chunk is in, so a failed or abandoned upload
 * leaves nothing visible (Drive drops unfinished sessions after a week). The total is only ever
 * sent once the source has ended and its length matched `size`, so a stream of the wrong length
 * can never complete a file either. Memory: one chunk plus what the source hands over at once.
 */

export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;
export const CHUNK_GRANULE = 256 * 1024;
/** One chunk at a slow 64 KiB/s still fits. */
const CHUNK_TIMEOUT_MS = 5 * 60_000;
const EMPTY = Buffer.alloc(0);

export interface UploadTuning {
  /** Bytes per PUT; a multiple of 256 KiB. */
  chunkBytes: number;
  /** Failed attempts (network, 5xx, 429) tolerated per chunk before giving up. */
  maxFailures: number;
  /** First back-off delay; it doubles with every failure of the same chunk. */
  retryBaseMs: number;
}

export const DEFAULT_TUNING: UploadTuning = { chunkBytes: DEFAULT_CHUNK_BYTES, maxFailures: 5, retryBaseMs: 1000 };

export interface UploadRequest {
  name: string;
  parentId: string;
  contentType: string;
  /** The exact length, when the caller knows it. */
  size?: number;
  signal?: AbortSignal;
}

type ChunkAnswer = { done: true; item: DriveItem } | { done: false; received: number };

function aborted(signal: AbortSignal | undefined, name: string): ProviderError {
  const reason = signal?.reason instanceof Error ? `: ${signal.reason.message}` : '';
  return new ProviderError('permanent', `google drive: upload of ${JSON.stringify(name)} was aborted${reason}`, {
    cause: signal?.reason,
  });
}

function lengthMismatch(name: string, size: number, got: number, ended: boolean): ProviderError {
  return new ProviderError(
    'permanent',
    `google drive: upload of ${JSON.stringify(name)}: the stream is ${ended ? `${got} bytes` : `longer than ${size} bytes`}, ` +
      `but ${size} bytes were announced; nothing was stored`,
  );
}

/** `Range: bytes=0-n` -> n + 1; no header -> 0 (Drive has nothing yet). */
function receivedFrom(range: string | null): number {
  if (!range) return 0;
  const match = /^bytes=0-(\d+)$/.exec(range.trim());
  if (!match)
    throw new ProviderError('transient', `google drive: unexpected Range header in an upload status: ${range}`);
  return Number(match[1]) + 1;
}

export class ResumableUpload {
  readonly #auth: OAuth2Client;
  readonly #apiUrl: string;
  readonly #request: UploadRequest;
  readonly #tuning: UploadTuning;
  #session = '';
  /** Bytes Drive confirmed holding. */
  #offset = 0;
  /** Answers in a row that took no bytes. */
  #stalls = 0;

  constructor(auth: OAuth2Client, apiUrl: string, request: UploadRequest, tuning: UploadTuning) {
    if (tuning.chunkBytes <= 0 || tuning.chunkBytes % CHUNK_GRANULE !== 0)
      throw new ProviderError(
        'permanent',
        `google drive: the upload chunk size must be a positive multiple of ${CHUNK_GRANULE}`,
      );
    this.#auth = auth;
    this.#apiUrl = apiUrl;
    this.#request = request;
    this.#tuning = tuning;
  }

  /** Opens the upload session (no byte of the body is read yet). */
  async open(): Promise<void> {
    const { signal, name } = this.#request;
    if (signal?.aborted) throw aborted(signal, name);
    this.#session = await this.#start();
  }

  /** Streams `body` into the session opened by open(); resolves with the finished file. */
  async send(body: Readable): Promise<DriveItem> {
    const { signal, size, name } = this.#request;
    if (!this.#session) throw new Error('ResumableUpload.send() before open()');
    if (signal?.aborted) throw aborted(signal, name);
    const chunkBytes = this.#tuning.chunkBytes;
    // The bytes read from the source that Drive has not confirmed yet (they start at #offset), in
    // one buffer reused for every chunk: it grows up to chunkBytes, so small objects stay small.
    let buf = Buffer.allocUnsafe(Math.min(chunkBytes, size ?? CHUNK_GRANULE));
    let fill = 0;
    let total = 0;
    for await (const piece of body as AsyncIterable<Buffer | string | Uint8Array>) {
      if (signal?.aborted) throw aborted(signal, name);
      let rest =
        typeof piece === 'string'
          ? Buffer.from(piece)
          : Buffer.isBuffer(piece)
            ? piece
            : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
      total += rest.length;
      if (size !== undefined && total > size) throw lengthMismatch(name, size, total, false);
      while (rest.length > 0) {
        if (fill === chunkBytes) {
          // A full chunk goes out only once at least one more byte is known to follow: the last
          // chunk must carry the total, which is known only when the source has ended. Every
          // other chunk is exactly chunkBytes long (a multiple of 256 KiB, as Drive requires),
          // from wherever Drive's confirmed offset stands; what Drive did not take stays here.
          const answer = await this.#attempt(buf, undefined);
          if (answer.done)
            throw new ProviderError(
              'transient',
              `google drive: upload of ${JSON.stringify(name)}: Drive closed the file before its end`,
            );
          const taken = this.#advance(answer.received, chunkBytes);
          buf.copyWithin(0, taken, fill);
          fill -= taken;
          if (signal?.aborted) throw aborted(signal, name);
        }
        if (fill === buf.length) {
          const grown = Buffer.allocUnsafe(Math.min(chunkBytes, Math.max(CHUNK_GRANULE, buf.length * 2)));
          buf.copy(grown, 0, 0, fill);
          buf = grown;
        }
        const n = Math.min(rest.length, buf.length - fill);
        rest.copy(buf, fill, 0, n);
        fill += n;
        rest = rest.subarray(n);
      }
    }
    if (signal?.aborted) throw aborted(signal, name);
    if (size !== undefined && total !== size) throw lengthMismatch(name, size, total, true);
    let last = buf.subarray(0, fill);
    for (;;) {
      const answer = await this.#attempt(last, total);
      if (answer.done) {
        if (answer.item.size !== total)
          throw new ProviderError(
            'transient',
            `google drive: upload of ${JSON.stringify(name)}: Drive stored ${answer.item.size} bytes of ${total}`,
          );
        return answer.item;
      }
      last = last.subarray(this.#advance(answer.received, last.length));
    }
  }

  /**
   * Takes Drive's confirmed offset after sending `sent` bytes from the previous one; returns how
   * many of them Drive holds now. A session that keeps taking nothing is given up on.
   */
  #advance(received: number, sent: number): number {
    const { name } = this.#request;
    if (received < this.#offset || received > this.#offset + sent) {
      throw new ProviderError(
        'transient',
        `google drive: upload of ${JSON.stringify(name)}: Drive holds ${received} bytes, expected ${this.#offset} to ${this.#offset + sent}`,
      );
    }
    const taken = received - this.#offset;
    this.#offset = received;
    if (taken > 0) this.#stalls = 0;
    else if (++this.#stalls > this.#tuning.maxFailures) {
      throw new ProviderError(
        'transient',
        `google drive: upload of ${JSON.stringify(name)}: Drive accepts no more bytes at offset ${received}`,
      );
    }
    return taken;
  }

  /**
   * One PUT of `bytes` (from the confirmed offset; `total` marks the last chunk). After a network
   * error, a 5xx or a 429 it backs off and asks Drive for the upload's status instead; that answer
   * is returned, and the caller resends from the offset Drive reports.
   */
  async #attempt(bytes: Buffer, total: number | undefined): Promise<ChunkAnswer> {
    const { signal, name } = this.#request;
    let failures = 0;
    for (let ask = false; ; ask = true) {
      try {
        return ask ? await this.#put(EMPTY, total, true) : await this.#put(bytes, total, false);
      } catch (err) {
        if (signal?.aborted) throw aborted(signal, name);
        if (!isRetryable(err) || ++failures > this.#tuning.maxFailures)
          throw toProviderError(err, `uploading ${JSON.stringify(name)}`);
        await sleep(this.#tuning.retryBaseMs * 2 ** (failures - 1), undefined, signal ? { signal } : {}).catch(
          () => undefined,
        );
        if (signal?.aborted) throw aborted(signal, name);
      }
    }
  }

  /** Opens the session; its URI is the credential for the chunks. */
  async #start(): Promise<string> {
    const { name, parentId, contentType, size, signal } = this.#request;
    const url = new URL('upload/drive/v3/files', this.#apiUrl);
    url.searchParams.set('uploadType', 'resumable');
    url.searchParams.set('fields', ITEM_FIELDS);
    try {
      const res = await this.#auth.request({
        url: url.href,
        method: 'POST',
        headers: {
          'Content-Type': 'application/json; charset=UTF-8',
          'X-Upload-Content-Type': contentType,
          ...(size === undefined ? {} : { 'X-Upload-Content-Length': String(size) }),
        },
        data: JSON.stringify({ name, parents: [parentId], mimeType: contentType }),
        timeout: REQUEST_TIMEOUT_MS,
        // Opening a session has no visible effect, so a failed attempt is safe to repeat.
        retryConfig: { retry: 3, httpMethodsToRetry: ['POST'], noResponseRetries: 2 },
        ...(signal ? { signal } : {}),
      });
      const location = res.headers.get('location');
      if (!location)
        throw new ProviderError('permanent', 'google drive: Drive opened no upload session (no Location header)');
      return new URL(location, url).href;
    } catch (err) {
      if (signal?.aborted) throw aborted(signal, name);
      throw toProviderError(err, `starting the upload of ${JSON.stringify(name)}`);
    }
  }

  /** One PUT to the session: bytes from the confirmed offset, or (status) none. */
  async #put(bytes: Buffer, total: number | undefined, status: boolean): Promise<ChunkAnswer> {
    const totalText = total === undefined ? '*' : String(total);
    const range =
      bytes.length === 0
        ? `bytes */${totalText}`
        : `bytes ${this.#offset}-${this.#offset + bytes.length - 1}/${totalText}`;
    const { signal, contentType } = this.#request;
    const res = await this.#auth.request<unknown>({
      url: this.#session,
      method: 'PUT',
      headers: { 'Content-Range': range, ...(status ? {} : { 'Content-Type': contentType }) },
      data: bytes,
      responseType: 'json',
      timeout: status ? REQUEST_TIMEOUT_MS : CHUNK_TIMEOUT_MS,
      retry: false, // resuming is done here, from what Drive says it holds
      validateStatus: (code) => (code >= 200 && code < 300) || code === 308,
      ...(signal ? { signal } : {}),
    });
    if (res.status === 308) return { done: false, received: receivedFrom(res.headers.get('range')) };
    return { done: true, item: toItem(res.data as drive_v3.Schema$File) };
  }
}
