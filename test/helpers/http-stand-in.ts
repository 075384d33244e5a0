import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** A request the stand-in got. */
export interface StandInRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: string;
  json: any;
}
/** What the stand-in answers: a status and a JSON body (or text). */
export interface StandInAnswer {
  status: number;
  json?: unknown;
  text?: string;
}

/** A request's whole body, as text and (when it is JSON) parsed. */
export async function readBody(req: IncomingMessage): Promise<{ raw: string; json: any }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  try {
    return { raw, json: JSON.parse(raw) };
  } catch {
    return { raw, json: undefined };
  }
}

/**
 * An HTTP server on 127.0.0.1 that plays a service's API for notifier tests: `respond` decides
 * each answer the way the service would (paths, credentials, error bodies), every request is
 * recorded.
 */
export async function startHttpStandIn(respond: (req: StandInRequest) => StandInAnswer) {
  const requests: StandInRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void readBody(req).then(({ raw, json }) => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      const recorded: StandInRequest = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        json,
      };
      requests.push(recorded);
      const answer = respond(recorded);
      if (answer.json !== undefined)
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
      else res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.text ?? '');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
