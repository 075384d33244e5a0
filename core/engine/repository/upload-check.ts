import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/** An uploaded file's content is not what its name says: the upload is refused, nothing is stored. */
export class ContentMismatchError extends Error {
  constructor(id: string, actual: string) {
    super(`content SHA-256 ${actual} does not match the name ${id}`);
    this.name = 'ContentMismatchError';
  }
}

/**
 * Hashes an upload on its way to the storage and lets it end only when its SHA-256 is `id`.
 * The latest chunk is held back until then, so the storage never receives the last byte of a
 * mismatching upload: it sees an error instead of an end, and the put contract (a stream that
 * errors leaves nothing) removes the rest, even on a storage that would commit as soon as
 * `size` bytes arrived.
 */
export function contentCheck(id: string): { stream: Transform; mismatched: () => boolean } {
  const hash = createHash('sha256');
  let held: Buffer | undefined;
  let mismatch = false;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      const previous = held;
      held = chunk;
      callback(null, previous);
    },
    flush(callback) {
      const actual = hash.digest('hex');
      if (actual === id) return callback(null, held);
      mismatch = true;
      held = undefined;
      callback(new ContentMismatchError(id, actual));
    },
  });
  // The flag, not the error: a storage may reject the put with an error of its own wrapping it.
  return { stream, mismatched: () => mismatch };
}
