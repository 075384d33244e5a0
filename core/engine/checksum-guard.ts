import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';

/**
 * Counts and hashes the bytes passing through; at the end, a length or SHA-256 that differs
 * from the record fails the stream, so the client sees an aborted transfer, never a quietly
 * corrupt file.
 */
export function checksumGuard(expectedSize: number, expectedSha256: string, onMismatch: (why: string) => void): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      hash.update(chunk);
      cb(null, chunk);
    },
    flush(cb) {
      const actual = hash.digest('hex');
      if (seen !== expectedSize || (expectedSha256 !== '' && actual !== expectedSha256)) {
        const why = seen !== expectedSize ? `the stored object has ${seen} bytes, the record says ${expectedSize}` : `SHA-256 ${actual} differs from the record's ${expectedSha256}`;
        onMismatch(why);
        cb(new Error(`artifact check failed: ${why}`));
        return;
      }
      cb();
    },
  });
  // Consumers (a put, a pipeline, a reply) see the error through their own listeners; this one
  // only keeps a consumer that has not attached yet from turning it into a process crash.
  guard.on('error', () => undefined);
  return guard;
}
