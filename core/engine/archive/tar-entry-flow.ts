/**
 * Writing into tar-stream entries: errors heard once, and backpressure that an abort ends.
 * Shared by the file tar source and the dump archive of several databases.
 */

/**
 * A tar entry whose errors reach its callback only. An abort destroys the pack and with it the
 * open entry, which then emits its error again; unheard, that 'error' would kill the process.
 */
export function quiet<T extends { on(event: 'error', fn: () => void): unknown }>(entry: T): T {
  entry.on('error', () => undefined);
  return entry;
}

/** Resolves when `w` can take more, closes, or the run is aborted (a stopped consumer never drains). */
export function drained(
  w: { once(ev: string, fn: () => void): unknown; off(ev: string, fn: () => void): unknown },
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((res) => {
    const done = (): void => {
      w.off('drain', done);
      w.off('close', done);
      signal?.removeEventListener('abort', done);
      res();
    };
    w.once('drain', done);
    w.once('close', done);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}
