import { pipeline } from 'node:stream';
import { parseByteRange } from './byte-range.ts';
import { resticKey, type ResticFile } from './restic-layout.ts';
import { firstValue, textResponse } from './answers.ts';
import type { ResticBridgeOptions, ResticRequest, ResticResponse } from './restic-http.ts';
import { readSlice } from './slice-read.ts';
import { contentCheck } from './upload-check.ts';

/** HEAD, GET, POST and DELETE of one file of the repository; storage errors propagate to the caller. */

const OCTETS = 'application/octet-stream';

/** HEAD answers the length alone (restic's Stat); GET the object or the slice its Range asks for. */
export async function readFile(
  request: ResticRequest,
  options: ResticBridgeOptions,
  prefix: string,
  file: ResticFile,
): Promise<ResticResponse> {
  const key = resticKey(prefix, file);
  const info = await options.storage.stat(key);
  if (!info) return textResponse(404, 'Not Found');
  const whole = { 'content-type': OCTETS, 'content-length': String(info.size), 'accept-ranges': 'bytes' };
  if (request.method === 'HEAD') return { status: 200, headers: whole };
  const range = parseByteRange(firstValue(request.headers.range), info.size);
  if (range === 'unsatisfiable')
    return textResponse(416, 'Range Not Satisfiable', { 'content-range': `bytes */${info.size}` });
  const body = await readSlice(options.storage, key, info.size, range, options.signal);
  if (range === undefined) return { status: 200, headers: whole, body };
  return {
    status: 206,
    headers: {
      ...whole,
      'content-length': String(range.end - range.start + 1),
      'content-range': `bytes ${range.start}-${range.end}/${info.size}`,
    },
    body,
  };
}

function contentLength(request: ResticRequest): number | undefined | 'invalid' {
  const value = firstValue(request.headers['content-length']);
  if (value === undefined) return undefined;
  const size = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(size) ? size : 'invalid';
}

/**
 * Stores an upload under its name, refusing to replace a file (403, as rest-server: restic never
 * rewrites one, so a second upload is a retry or an attack on the repository). Every file but the
 * config is named by its SHA-256, checked on the way: a mismatch fails the put, so nothing stays.
 */
export async function saveFile(
  request: ResticRequest,
  options: ResticBridgeOptions,
  prefix: string,
  file: ResticFile,
): Promise<ResticResponse> {
  const size = contentLength(request);
  if (size === 'invalid') return textResponse(400, 'Bad Request: invalid Content-Length');
  const key = resticKey(prefix, file);
  if (await options.storage.stat(key)) return textResponse(403, 'Forbidden: the file exists and is never replaced');
  let cutShort = false;
  request.body.once('error', () => {
    cutShort = true;
  });
  const check = file.type === 'config' ? undefined : contentCheck(file.id);
  // pipeline carries an error of the request body into the check, and so into the put.
  const source = check ? pipeline(request.body, check.stream, () => undefined) : request.body;
  try {
    await options.storage.put(key, source, { size, contentType: OCTETS, signal: options.signal });
  } catch (err) {
    if (check?.mismatched()) return textResponse(400, 'Bad Request: the content does not match its name (SHA-256)');
    if (cutShort) return textResponse(400, 'Bad Request: the upload was cut short');
    throw err;
  }
  return textResponse(200, '');
}

/** Deleting a missing file succeeds (rest-server does the same: restic retries requests). */
export async function deleteFile(
  options: ResticBridgeOptions,
  prefix: string,
  file: ResticFile,
): Promise<ResticResponse> {
  if (options.appendOnly && file.type !== 'locks')
    return textResponse(403, 'Forbidden: the repository is append-only, only locks are deleted');
  await options.storage.delete(resticKey(prefix, file));
  return textResponse(200, '');
}
