import { Transform } from 'node:stream';

const COALESCE_BYTES = 64 * 1024;

/**
 * Counts source bytes and hands the compressor 64 KiB pieces: a tar of small files arrives
 * as header/data/padding fragments, and each fragment is a round trip through zlib.
 */
export function countingCoalescer(): { stream: Transform; bytes: () => number } {
  let rawBytes = 0;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      rawBytes += chunk.length;
      if (pendingBytes === 0 && chunk.length >= COALESCE_BYTES) return cb(null, chunk);
      pending.push(chunk);
      pendingBytes += chunk.length;
      if (pendingBytes < COALESCE_BYTES) return cb();
      const out = Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      cb(null, out);
    },
    flush(cb) {
      if (pendingBytes > 0) this.push(Buffer.concat(pending, pendingBytes));
      pending = [];
      pendingBytes = 0;
      cb();
    },
  });
  return { stream, bytes: () => rawBytes };
}
