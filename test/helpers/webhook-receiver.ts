import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { readBody } from './http-stand-in.ts';

/** One request a receiver got: headers, raw body and the body parsed as JSON. */
export interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  json: any;
}

/**
 * An HTTP receiver on 127.0.0.1 for webhook deliveries: it records every request, answers with
 * `status` (200 unless changed), can `hang` (accept and never answer) and can be stopped and
 * started again on the same port — a receiver that is down for a while.
 */
export interface WebhookReceiver {
  url: string;
  port: number;
  received: Received[];
  status: number;
  hang: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Resolves once `count` requests arrived (polls; bounded by `limitMs`). */
  waitFor(count: number, limitMs?: number): Promise<Received[]>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received: [],
    status: 200,
    hang: false,
    async start() {
      server = createServer((req, res) => {
        void readBody(req).then(({ raw, json }) => {
          receiver.received.push({ headers: req.headers, raw, json });
          if (receiver.hang) return;
          res
            .writeHead(receiver.status, { 'content-type': 'text/plain' })
            .end(receiver.status < 300 ? 'ok' : 'receiver refuses');
        });
      });
      server.on('connection', (s: Socket) => {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
      });
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(receiver.port, '127.0.0.1', () => resolve());
      });
      receiver.port = (server.address() as { port: number }).port;
      receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
    },
    async stop() {
      if (!server) return;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    },
    async waitFor(count, limitMs = 20_000) {
      for (let waited = 0; receiver.received.length < count; waited += 20) {
        if (waited > limitMs)
          throw new Error(`the receiver got ${receiver.received.length} request(s), expected ${count}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return receiver.received;
    },
  };
  await receiver.start();
  return receiver;
}
