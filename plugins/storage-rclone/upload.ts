import type { Readable, Writable } from 'node:stream';
import { addAbortSignal } from 'node:stream';
import { ProviderError } from '@backplane/plugin-api';
import { checkKey, tempKeyFor } from './keys.ts';
import type { RcloneChild } from './rclone-process.ts';
import { abortReason, type Call, type RcloneRunner, type Ready } from './rclone-runner.ts';
import { deleteQuietly } from './remote-files.ts';
import { uploadStrategy } from './upload-strategy.ts';

/** Bytes queued for rclone's stdin before put waits for it to drain (bounds memory, keeps the pipe busy). */
const WRITE_BUDGET = 4 * 1024 * 1024;
/** How long rclone gets to exit (and say why) after closing its stdin on us. */
const STDIN_CLOSED_GRACE_MS = 5_000;

/** Resolves when `stdin` can take more, or can take nothing any more (closed: the child is gone). */
function drained(stdin: Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stdin.off('drain', done);
      stdin.off('close', done);
      resolve();
    };
    stdin.on('drain', done);
    stdin.on('close', done);
    if (stdin.destroyed) done();
  });
}

/** Waits up to `ms` for the child to exit by itself. */
async function exitedWithin(child: RcloneChild, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    child.exited,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** put: straight to the key on atomic backends, else to a temporary name then `moveto`. */
export async function putObject(
  r: RcloneRunner,
  key: string,
  body: Readable,
  size: number | undefined,
  call: Call,
): Promise<{ size: number }> {
  try {
    checkKey(key);
    if (size !== undefined && (!Number.isSafeInteger(size) || size < 0))
      throw new ProviderError('permanent', `rclone: invalid size ${String(size)}`);
    call.signal?.throwIfAborted();
  } catch (err) {
    body.destroy();
    throw err;
  }
  const ready = await r.prepare().catch((err: unknown) => {
    body.destroy();
    throw err;
  });
  if (uploadStrategy(r.def.backend) === 'direct') return { size: await upload(r, ready, key, body, size, call, false) };
  const temp = tempKeyFor(key);
  const count = await upload(r, ready, temp, body, size, call, true);
  // Once the bytes are all up, the move is not aborted: a half-done move could lose the previous object.
  const moved = await r.run(ready, { op: 'moveto', from: temp, to: key }, { profile: call.profile });
  const failure = r.failure('moveto', moved, ready, call);
  if (failure) {
    await deleteQuietly(r, ready, temp, call.profile);
    throw failure;
  }
  return { size: count };
}

/**
 * Streams `body` into `rclone rcat`. The child's stdin is closed (EOF, which rclone takes as
 * "complete") only after the whole stream arrived with the announced size; on any failure the
 * child is killed first and stdin closed after it is gone, so a cut-short stream never
 * completes an upload.
 */
async function upload(
  r: RcloneRunner,
  ready: Ready,
  key: string,
  body: Readable,
  size: number | undefined,
  call: Call,
  isTemp: boolean,
): Promise<number> {
  const child = r.spawn(ready, { op: 'rcat', path: key, ...(size === undefined ? {} : { size }) }, call, {
    stdin: 'pipe',
    stdout: 'ignore',
  });
  if (call.signal) addAbortSignal(call.signal, body);
  let count = 0;
  try {
    if (child.pid === undefined) throw new ProviderError('unsupported', 'rclone could not be started');
    const stdin = child.stdin;
    for await (const chunk of body as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      count += bytes.length;
      if (size !== undefined && count > size)
        throw new ProviderError('permanent', `rclone: the stream is longer than its announced size of ${size} bytes`);
      if (child.exit) break;
      // Up to WRITE_BUDGET may wait in the pipe's queue: rclone never idles between chunks.
      if (!stdin.write(bytes) && stdin.writableLength > WRITE_BUDGET) await drained(stdin);
      // A closed stdin means rclone closed its end: it is exiting; wait (briefly) for its reason.
      if (stdin.destroyed && !child.exit) await exitedWithin(child, STDIN_CLOSED_GRACE_MS);
      if (child.exit || stdin.destroyed) break;
    }
    if (child.exit || stdin.destroyed) throw new ProviderError('transient', 'rclone rcat ended before the stream did');
    if (size !== undefined && count !== size)
      throw new ProviderError('permanent', `rclone: the stream is ${count} bytes, but its size was given as ${size}`);
    call.signal?.throwIfAborted();
    stdin.end();
    const exit = await child.exited;
    const failure = r.failure('rcat', exit, ready, call);
    if (failure) throw failure;
    return count;
  } catch (err) {
    const ownExit = child.exit && !child.exit.killedBy ? child.exit : undefined;
    const exit = await child.terminate();
    body.destroy();
    if (exit.spawnError) throw r.failure('rcat', exit, ready, call);
    if (isTemp) await deleteQuietly(r, ready, key, call.profile);
    if (call.signal?.aborted) throw abortReason(call.signal);
    if (err instanceof ProviderError && err.kind === 'permanent' && /announced size|size was given/.test(err.message))
      throw err;
    // rclone gave up on its own (auth, quota, network): its reason beats our EPIPE or early-end.
    if (ownExit) throw r.failure('rcat', ownExit, ready, call) ?? err;
    throw err;
  }
}
