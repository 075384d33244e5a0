import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A small HTTP reverse proxy on 127.0.0.1 (port 0) in front of `upstream` that breaks chosen
 * requests: a request the predicate picks (while fewer than `breakTimes` breaks have happened)
 * is forwarded until `afterBytes` bytes of its body have gone through, then both the client's
 * and the upstream's sockets are destroyed, so the client sees its connection cut in the middle
 * of the upload (and the upstream a truncated body). Every other request is forwarded verbatim:
 * method, path, headers (Host included, so WebDAV `Destination` headers stay valid) and bodies,
 * streamed both ways.
 */

export interface BreakingProxyOptions {
  /** e.g. `http://127.0.0.1:1234/`; only its host and port are used, the path is forwarded as is. */
  upstream: string;
  /** Which requests to break (default: none). */
  shouldBreak?: (req: { method: string; url: string }) => boolean;
  /** How many requests to break at most (default 1; `Infinity` for every matching request). */
  breakTimes?: number;
  /** Request-body bytes forwarded before the connection is cut (default 0). */
  afterBytes?: number;
}

export interface BreakingProxy {
  url: string;
  port: number;
  /** Requests broken so far. */
  readonly breaks: number;
  /** Every request seen so far (`METHOD url [(cut)] [-> status]`), for diagnostics; capped. */
  readonly seen: readonly string[];
  close(): Promise<void>;
}

const SEEN_CAP = 1000;

export async function startBreakingProxy(options: BreakingProxyOptions): Promise<BreakingProxy> {
  const upstream = new URL(options.upstream);
  const breakTimes = options.breakTimes ?? 1;
  const afterBytes = options.afterBytes ?? 0;
  let breaks = 0;
  const seen: string[] = [];
  const sockets = new Set<Socket>();

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const breaking = breaks < breakTimes && (options.shouldBreak?.({ method, url }) ?? false);
    if (breaking) breaks++;
    const index = seen.length < SEEN_CAP ? seen.push(`${method} ${url}${breaking ? ' (cut)' : ''}`) - 1 : -1;

    const upstreamReq = httpRequest({
      host: upstream.hostname,
      port: upstream.port,
      method,
      path: url,
      headers: req.headers,
      agent: false,
    });
    const cut = (): void => {
      upstreamReq.destroy();
      req.socket.destroy();
    };
    upstreamReq.on('error', () => {
      // The upstream went away (or we cut it): the client loses its connection too.
      req.socket.destroy();
    });
    upstreamReq.on('response', (upRes) => {
      upRes.on('error', () => req.socket.destroy());
      if (index >= 0) seen[index] += ` -> ${upRes.statusCode}`;
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, upRes.rawHeaders);
      upRes.pipe(res);
    });
    req.on('error', () => upstreamReq.destroy());
    res.on('close', () => {
      if (!res.writableFinished) upstreamReq.destroy();
    });

    if (!breaking) {
      req.pipe(upstreamReq);
      return;
    }
    let forwarded = 0;
    if (afterBytes === 0) {
      cut();
      return;
    }
    req.on('data', (chunk: Buffer) => {
      if (forwarded >= afterBytes) return;
      const room = afterBytes - forwarded;
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      forwarded += part.length;
      upstreamReq.write(part);
      if (forwarded >= afterBytes) {
        // Let the forwarded bytes reach the upstream, then cut both sides.
        setImmediate(cut);
      }
    });
    // A body shorter than afterBytes: the request is still broken, once it has all arrived.
    req.on('end', () => {
      if (forwarded < afterBytes) setImmediate(cut);
    });
  };

  const server = createServer(handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('breaking proxy: no address');
  const port = address.port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    get breaks() {
      return breaks;
    },
    get seen() {
      return seen;
    },
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closed;
    },
  };
}
