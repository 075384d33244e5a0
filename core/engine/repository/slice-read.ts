import { Readable } from 'node:stream';
import type { StorageInstance } from '@backplane/plugin-api';
import type { ByteRange } from './byte-range.ts';

/**
 * Reads exactly one slice of a stored object, whatever the storage does with the range it is
 * given. The storage contract says get() honours ranges, but a plugin that streams the whole
 * object from byte 0 would hand restic the wrong bytes under a 206, and restic would take them
 * for a damaged pack. So each storage instance is asked once, with a one-byte range at the end
 * of an object it holds: one byte back means it honours the start of a range (and then its
 * slices are only cut to length, in case it ignores the end); more means it streams from byte 0,
 * and from then on the bridge skips the leading bytes itself.
 */

/** Per storage instance, whether get() starts at a range's start; weak, so a closed instance is not kept. */
const startsAtRangeStart = new WeakMap<StorageInstance, Promise<boolean>>();

async function probe(storage: StorageInstance, key: string, size: number, signal?: AbortSignal): Promise<boolean> {
  const stream = await storage.get(key, { start: size - 1, end: size - 1 }, { signal });
  let bytes = 0;
  // Breaking out of the loop destroys the stream: the answer needs at most two bytes.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > 1) break;
  }
  if (bytes === 0) throw new Error(`storage returned no byte of a ${size}-byte object at offset ${size - 1}`);
  return bytes === 1;
}

async function honoursStart(storage: StorageInstance, key: string, size: number, signal?: AbortSignal) {
  let known = startsAtRangeStart.get(storage);
  if (!known) {
    known = probe(storage, key, size, signal);
    startsAtRangeStart.set(storage, known);
    // A probe that failed (a network error, an abort) proved nothing: the next read asks again.
    known.catch(() => startsAtRangeStart.delete(storage));
  }
  return known;
}

/**
 * Skips `skip` bytes, passes `length`, then ends and destroys the source; fails when the source
 * ends early, so a short object never looks like a complete answer.
 */
function cut(source: Readable, skip: number, length: number): Readable {
  async function* slice() {
    let toSkip = skip;
    let left = length;
    try {
      if (left === 0) return;
      for await (const piece of source as AsyncIterable<Buffer>) {
        let chunk = piece;
        if (toSkip > 0) {
          if (chunk.length <= toSkip) {
            toSkip -= chunk.length;
            continue;
          }
          chunk = chunk.subarray(toSkip);
          toSkip = 0;
        }
        if (chunk.length >= left) {
          yield chunk.subarray(0, left);
          return;
        }
        left -= chunk.length;
        yield chunk;
      }
      throw new Error(`storage returned ${length - left} of ${length} bytes`);
    } finally {
      // However the slice ends (complete, short, or its reader gone), the storage's stream is
      // let go: a file handle or an rclone process is not left waiting for a reader.
      source.destroy();
    }
  }
  return Readable.from(slice(), { objectMode: false });
}

/** The bytes `range` of a `size`-byte object (undefined: all of it), as a stream of exactly that length. */
export async function readSlice(
  storage: StorageInstance,
  key: string,
  size: number,
  range: ByteRange | undefined,
  signal?: AbortSignal,
): Promise<Readable> {
  if (range === undefined || (range.start === 0 && range.end === size - 1)) {
    return cut(await storage.get(key, undefined, { signal }), 0, size);
  }
  const length = range.end - range.start + 1;
  if (range.start === 0) return cut(await storage.get(key, range, { signal }), 0, length);
  const native = await honoursStart(storage, key, size, signal);
  return cut(await storage.get(key, range, { signal }), native ? 0 : range.start, length);
}
