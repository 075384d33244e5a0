import { Transform, type Readable } from 'node:stream';
import type { StorageInstance } from '@backplane/plugin-api';

const UNITS: Record<string, number> = { '': 1024, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * Bytes per second from a node's `bandwidthLimit`, which takes rclone's form (`512K`, `10M`,
 * `1.5G`; a bare number is KiB/s, as in rclone). '' or anything else means no limit (undefined).
 */
export function parseBandwidth(limit: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)$/.exec(limit.trim());
  if (!m) return undefined;
  const rate = Math.floor(Number(m[1]) * UNITS[m[2]!]!);
  return rate > 0 ? rate : undefined;
}

/**
 * Paces a stream to `bytesPerSecond`: each chunk waits until the bytes sent so far fit the rate
 * since the start. Averages over the whole transfer, so short bursts after a slow spell are
 * allowed, which is what a link-sharing limit needs.
 */
export function throttle(bytesPerSecond: number): Transform {
  const started = Date.now();
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      sent += chunk.length;
      const due = started + (sent / bytesPerSecond) * 1000;
      const wait = due - Date.now();
      if (wait <= 0) cb(null, chunk);
      else setTimeout(() => cb(null, chunk), wait);
    },
  });
}

/** A storage instance whose uploads are paced to `bytesPerSecond` (direct uploads from a node with a bandwidth limit). */
export function pacedStorage(inner: StorageInstance, bytesPerSecond: number): StorageInstance {
  return {
    ...inner,
    put: (key: string, body: Readable, meta?: Parameters<StorageInstance['put']>[2]) => {
      const paced = throttle(bytesPerSecond);
      // A failing source must fail the upload, as it would unpaced.
      body.on('error', (err) => paced.destroy(err));
      return inner.put(key, body.pipe(paced), meta);
    },
    get: inner.get.bind(inner),
    list: inner.list.bind(inner),
    stat: inner.stat.bind(inner),
    delete: inner.delete.bind(inner),
    testConnection: inner.testConnection.bind(inner),
    ...(inner.usage ? { usage: inner.usage.bind(inner) } : {}),
    ...(inner.close ? { close: inner.close.bind(inner) } : {}),
  };
}
