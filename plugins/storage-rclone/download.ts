import { PassThrough, Readable } from 'node:stream';
import { ProviderError } from '@backplane/plugin-api';
import { checkKey } from './keys.ts';
import type { Call, RcloneRunner } from './rclone-runner.ts';
import { statFile } from './remote-files.ts';

function checkRange(range: { start: number; end?: number } | undefined): { start: number; end?: number } {
  const start = range?.start ?? 0;
  const end = range?.end;
  if (!Number.isSafeInteger(start) || start < 0)
    throw new ProviderError('permanent', `rclone: invalid range start ${String(start)}`);
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new ProviderError('permanent', `rclone: invalid range end ${String(end)}`);
  return { start, end };
}

/** get: `cat --offset --count` of an object that exists, as a stream that ends only when every byte came. */
export async function getObject(
  r: RcloneRunner,
  key: string,
  range: { start: number; end?: number } | undefined,
  call: Call,
): Promise<Readable> {
  checkKey(key);
  const { start, end } = checkRange(range);
  const ready = await r.prepare();
  // `cat` of a folder would print every file in it, and of a missing path nothing at all:
  // ask first, so that only an existing object is read.
  const info = await statFile(r, ready, key, call);
  if (!info) throw new ProviderError('not_found', `rclone: no object ${JSON.stringify(key)}`);
  const known = info.size >= 0;
  if (known && start >= info.size) return Readable.from([]);
  const last = known ? Math.min(end ?? info.size - 1, info.size - 1) : end;
  const expected = last === undefined ? undefined : last - start + 1;
  const child = r.spawn(
    ready,
    { op: 'cat', path: key, offset: start, ...(end === undefined ? {} : { count: expected }) },
    call,
    { stdout: 'pipe' },
  );
  const out = new PassThrough();
  let received = 0;
  if (child.pid !== undefined) {
    child.stdout.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    child.stdout.pipe(out, { end: false });
  }
  // The stream ends only once rclone has exited cleanly with every byte: a failure midway
  // (or a short read) destroys it with an error instead of a silent, truncated end.
  void child.exited.then((exit) => {
    if (out.destroyed) return;
    const failure = r.failure('cat', exit, ready, call);
    if (failure) out.destroy(failure as Error);
    else if (expected !== undefined && received !== expected)
      out.destroy(
        new ProviderError('transient', `rclone cat: read ${received} of ${expected} bytes of ${JSON.stringify(key)}`),
      );
    else out.end();
  });
  out.on('close', () => {
    if (!child.exit) void child.terminate();
  });
  return out;
}
