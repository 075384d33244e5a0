import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { handleResticRequest } from './rest-bridge.ts';
import { textResponse } from './answers.ts';
import type { ResticBridgeOptions, ResticResponse } from './restic-http.ts';
import { repositoryPrefix } from './restic-layout.ts';

/**
 * One restic run's way to a storage: an HTTP server on 127.0.0.1 (a free port) serving the
 * REST bridge under a random path, so that only the process handed the URL (restic, spawned by
 * this one) finds the repository; every other path is a 404.
 */

export interface LoopbackBridge {
  /** The restic repository string: `rest:http://127.0.0.1:<port>/<token>/`. */
  readonly url: string;
  /**
   * Stops accepting connections, closes idle keep-alive ones, lets requests in flight finish for
   * up to `closeGraceMs`, then aborts their storage operations and destroys their connections.
   * Resolves once the server is closed; calling it again returns the same promise.
   */
  close(): Promise<void>;
}

export interface LoopbackBridgeOptions extends ResticBridgeOptions {
  /** How long close() waits for requests in flight; default 10 s. */
  closeGraceMs?: number;
}

const CLOSE_GRACE_MS = 10_000;

export async function startLoopbackBridge(options: LoopbackBridgeOptions): Promise<LoopbackBridge> {
  repositoryPrefix(options.prefix); // a bad prefix fails here, not in every request
  const token = randomBytes(32).toString('base64url');
  const base = Buffer.from(`/${token}`);
  // `stopping`: close() was called, no new connection, no more keep-alive; `forced`: the grace
  // period is over, storage operations still running are aborted.
  const state = { stopping: false };
  const forced = new AbortController();
  const inFlight = new Set<ServerResponse>();
  let idle: (() => void) | undefined;

  const server = createServer(
    // The upload's pace is the storage's (the body is read as fast as it is stored), so a
    // limit on the time to receive a request would cut a healthy upload to a slow storage.
    { requestTimeout: 0 },
    (req, res) => {
      inFlight.add(res);
      res.once('close', () => {
        inFlight.delete(res);
        if (state.stopping) server.closeIdleConnections();
        if (inFlight.size === 0) idle?.();
      });
      serve(req, res, { base, state, forced: forced.signal, options }).catch((err: unknown) => {
        options.onError?.(err);
        res.destroy();
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  const close = async (): Promise<void> => {
    state.stopping = true;
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (inFlight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.closeGraceMs ?? CLOSE_GRACE_MS);
        idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    forced.abort(new Error('the restic bridge is closing'));
    server.closeAllConnections();
    await stopped;
  };
  let closed: Promise<void> | undefined;
  return {
    url: `rest:http://127.0.0.1:${port}/${token}/`,
    close: () => (closed ??= close()),
  };
}

/** The path below the token, or undefined when the request is not for this bridge. */
function pathBelow(base: Buffer, path: string): string | undefined {
  const head = Buffer.from(path.slice(0, base.length));
  if (head.length !== base.length || !timingSafeEqual(head, base)) return undefined;
  const rest = path.slice(base.length);
  if (rest === '') return '/';
  return rest.startsWith('/') ? rest : undefined;
}

interface Context {
  base: Buffer;
  state: { stopping: boolean };
  forced: AbortSignal;
  options: LoopbackBridgeOptions;
}

async function serve(req: IncomingMessage, res: ServerResponse, context: Context): Promise<void> {
  const { base, state, forced, options } = context;
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = pathBelow(base, queryAt === -1 ? url : url.slice(0, queryAt));
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client went away'));
  });
  const signals = [forced, gone.signal, ...(options.signal ? [options.signal] : [])];
  let answer: ResticResponse;
  if (path === undefined) answer = textResponse(404, 'Not Found');
  else {
    try {
      answer = await handleResticRequest(
        {
          method: req.method ?? 'GET',
          path,
          query: Object.fromEntries(new URLSearchParams(queryAt === -1 ? '' : url.slice(queryAt + 1))),
          headers: req.headers,
          body: req,
        },
        { ...options, signal: AbortSignal.any(signals) },
      );
    } catch (err) {
      options.onError?.(err);
      answer = textResponse(500, 'Internal Server Error');
    }
  }
  if (res.destroyed) {
    if (answer.body instanceof Readable) answer.body.destroy();
    return;
  }
  // A bridge that is closing keeps no connection open past its answer.
  if (state.stopping) res.setHeader('connection', 'close');
  res.writeHead(answer.status, answer.headers);
  if (!(answer.body instanceof Readable)) {
    res.end(answer.body);
    return;
  }
  // The body's own failure is worth reporting; the client going away first is not (the
  // pipeline then destroys the body too, after the response closed).
  let failure: unknown;
  const body = answer.body;
  body.once('error', (err) => {
    if (!gone.signal.aborted) failure = err;
  });
  try {
    // A body that fails midway destroys the connection: restic sees a short answer, not a
    // clean end after the wrong number of bytes.
    await pipeline(body, res);
  } catch {
    if (failure !== undefined) options.onError?.(failure);
  }
}
