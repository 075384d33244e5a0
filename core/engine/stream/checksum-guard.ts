import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * Counts and hashes the bytes passing through. The latest chunk is held back until the end:
 * only when the length and SHA-256 match the record does it go out, so a consumer of a bad
 * object never receives its last byte (an HTTP reply with a Content-Length is cut short, and
 * every client reports a truncated transfer), it gets an error instead of a clean end.
 * `onMismatch` runs (and is awaited) before the error, so a caller can record the verdict first;
 * `onMatch` runs once the whole object checked out.
 */
export function checksumGuard(
  expectedSize: number,
  expectedSha256: string,
  onMismatch: (why: string) => void | Promise<void>,
  onMatch?: () => void | Promise<void>,
): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  let held: Buffer | undefined;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      hash.update(chunk);
      const previous = held;
      held = chunk;
      cb(null, previous);
    },
    flush(cb) {
      const actual = hash.digest('hex');
      if (seen !== expectedSize || (expectedSha256 !== '' && actual !== expectedSha256)) {
        const why =
          seen !== expectedSize
            ? `the stored object has ${seen} bytes, the record says ${expectedSize}`
            : `SHA-256 ${actual} differs from the record's ${expectedSha256}`;
        held = undefined;
        void Promise.resolve()
          .then(() => onMismatch(why))
          .catch(() => undefined)
          .then(() => cb(new ArtifactCheckError(why)));
        return;
      }
      void Promise.resolve()
        .then(() => onMatch?.())
        .catch(() => undefined)
        .then(() => cb(null, held));
    },
  });
  // Consumers (a put, a pipeline, a reply) see the error through their own listeners; this one
  // only keeps a consumer that has not attached yet from turning it into a process crash.
  guard.on('error', () => undefined);
  return guard;
}

/** The stored bytes differ from the record: the copy is corrupt (not a transient read failure). */
export class ArtifactCheckError extends Error {
  readonly why: string;
  constructor(why: string) {
    super(`artifact check failed: ${why}`);
    this.name = 'ArtifactCheckError';
    this.why = why;
  }
}
