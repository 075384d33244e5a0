import { Readable } from 'node:stream';
import type { ObjectInfo } from '@backplane/plugin-api';
import { resticIdOf, resticListPrefix, type ResticFileType } from './restic-layout.ts';
import { firstValue } from './answers.ts';
import {
  RESTIC_REST_V1,
  RESTIC_REST_V2,
  type ResticBridgeOptions,
  type ResticRequest,
  type ResticResponse,
} from './restic-http.ts';

/** JSON is sent in pieces of about this size: a repository's data folder may list a million packs. */
const PIECE = 64 * 1024;

function wantsV2(request: ResticRequest): boolean {
  const accept = firstValue(request.headers.accept) ?? '';
  return accept.split(',').some((type) => type.split(';')[0]!.trim() === RESTIC_REST_V2);
}

/**
 * `GET /<type>/`: the files of one type, v2 (`[{"name","size"}]`) when the client accepts it, v1
 * (`["name"]`) otherwise, streamed as the storage lists them. The first entry is awaited before
 * answering, so a storage that cannot list at all gets an error status, not a 200; a failure
 * later on cuts the answer short, which restic reports as a broken listing.
 */
export async function listFiles(
  request: ResticRequest,
  options: ResticBridgeOptions,
  prefix: string,
  type: ResticFileType,
): Promise<ResticResponse> {
  const v2 = wantsV2(request);
  const entries = options.storage.list(resticListPrefix(prefix, type))[Symbol.asyncIterator]();
  const first = await entries.next();
  const entry = (info: ObjectInfo): string | undefined => {
    const id = resticIdOf(prefix, type, info.key);
    if (id === undefined) return undefined;
    return JSON.stringify(v2 ? { name: id, size: info.size } : id);
  };
  async function* json() {
    let piece = '[';
    let separator = '';
    try {
      for (let next = first; !next.done; next = await entries.next()) {
        const text = entry(next.value);
        if (text === undefined) continue;
        piece += separator + text;
        separator = ',';
        if (piece.length >= PIECE) {
          yield piece;
          piece = '';
        }
      }
      yield `${piece}]`;
    } finally {
      // The reader went away (or the list failed): the storage's listing is closed, not left open.
      await entries.return?.();
    }
  }
  return {
    status: 200,
    headers: { 'content-type': v2 ? RESTIC_REST_V2 : RESTIC_REST_V1 },
    body: Readable.from(json(), { objectMode: false }),
  };
}
