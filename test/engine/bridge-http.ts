import { request, type Agent, type IncomingMessage } from 'node:http';
import type { LoopbackBridge } from '../../core/engine/index.ts';

/** Raw HTTP to a loopback bridge: paths are sent exactly as written (fetch would normalise `..`). */

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export function httpUrl(bridge: LoopbackBridge): URL {
  return new URL(bridge.url.replace(/^rest:/, ''));
}

/** One request to the bridge's server; rejects when the connection breaks before the body ended. */
export function send(
  url: URL,
  path: string,
  options: { method?: string; body?: Buffer; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
