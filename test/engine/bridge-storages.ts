import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { StorageInstance } from '@backplane/plugin-api';
import { handleResticRequest, type ResticBridgeOptions } from '../../core/engine/index.ts';

/** Storage wrappers and a direct caller for the restic bridge's tests. */

export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** `inner` with some of its methods replaced (the rest bound to it: plugin instances have private fields). */
export function wrapStorage(inner: StorageInstance, overrides: Partial<StorageInstance> = {}): StorageInstance {
  return {
    put: inner.put.bind(inner),
    get: inner.get.bind(inner),
    list: inner.list.bind(inner),
    stat: inner.stat.bind(inner),
    delete: inner.delete.bind(inner),
    testConnection: inner.testConnection.bind(inner),
    ...overrides,
  };
}

/** A storage whose get() streams the whole object from byte 0, whatever range it is asked for. */
export function rangeIgnoring(inner: StorageInstance): StorageInstance {
  return wrapStorage(inner, { get: (key, _range, options) => inner.get(key, undefined, options) });
}

/** A storage whose get() starts at a range's start but reads on to the end of the object. */
export function endIgnoring(inner: StorageInstance): StorageInstance {
  return wrapStorage(inner, {
    get: (key, range, options) => inner.get(key, range ? { start: range.start } : undefined, options),
  });
}

/** Records every key and prefix the bridge hands the storage. */
export function recording(inner: StorageInstance, keys: string[]): StorageInstance {
  const seen = <T>(key: string, value: T): T => {
    keys.push(key);
    return value;
  };
  return wrapStorage(inner, {
    put: (key, body, meta) => seen(key, inner.put(key, body, meta)),
    get: (key, range, options) => seen(key, inner.get(key, range, options)),
    list: (prefix) => seen(prefix, inner.list(prefix)),
    stat: (key) => seen(key, inner.stat(key)),
    delete: (key) => seen(key, inner.delete(key)),
  });
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface Call {
  headers?: Record<string, string>;
  query?: Record<string, string>;
  body?: Buffer | string;
}

/** One request straight into handleResticRequest, its answer read whole. */
export async function call(
  options: ResticBridgeOptions,
  method: string,
  path: string,
  request: Call = {},
): Promise<Answer> {
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(request.body);
  const headers = { 'content-length': String(body.length), ...request.headers };
  const answer = await handleResticRequest(
    { method, path, query: request.query ?? {}, headers, body: Readable.from([body]) },
    options,
  );
  let bytes: Buffer;
  if (answer.body === undefined) bytes = Buffer.alloc(0);
  else if (answer.body instanceof Readable) bytes = Buffer.concat(await answer.body.toArray());
  else bytes = Buffer.from(answer.body);
  return { status: answer.status, headers: answer.headers, body: bytes };
}
