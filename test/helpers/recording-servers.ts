import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * Servers on 127.0.0.1 that record what a storage client sent and refuse it, for checking
 * which settings reach the wire without a real S3 or FTP service: an HTTP server that also
 * answers proxy CONNECTs (so requests to a vendor's public endpoint stop here, never resolved
 * or sent anywhere), and an FTP control-channel server that logs in anyone and refuses every
 * file command.
 */

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface HttpRecorder {
  url: string;
  requests: RecordedRequest[];
  /** `host:port` of every CONNECT (HTTPS through this server as a proxy). */
  connects: string[];
  close(): Promise<void>;
}

const ACCESS_DENIED =
  '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>recording stand-in</Message></Error>';

export async function startHttpRecorder(): Promise<HttpRecorder> {
  const requests: RecordedRequest[] = [];
  const connects: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    res.writeHead(403, { 'content-type': 'application/xml' }).end(ACCESS_DENIED);
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  server.on('connect', (req, socket: Socket) => {
    connects.push(req.url ?? '');
    socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
  });
  const port = await listen(server);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    connects,
    close: () => close(server, sockets),
  };
}

export interface FtpRecorder {
  host: string;
  port: number;
  /** Every command line received, in order (`USER alice`, `PASS secret`, `AUTH TLS`, `MKD ...`). */
  commands: string[];
  close(): Promise<void>;
}

/** Answers the login (any user and password) and refuses everything else, recording each command. */
export async function startFtpRecorder(): Promise<FtpRecorder> {
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    let pending = '';
    socket.write('220 recording stand-in\r\n');
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        commands.push(line);
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'USER') socket.write('331 password please\r\n');
        else if (verb === 'PASS') socket.write('230 logged in\r\n');
        else if (verb === 'TYPE' || verb === 'OPTS') socket.write('200 ok\r\n');
        else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (verb === 'AUTH') socket.write('534 no TLS here\r\n');
        else socket.write('550 refused by the recording stand-in\r\n');
      }
    });
  });
  const port = await listen(server);
  return { host: '127.0.0.1', port, commands, close: () => close(server, sockets) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return (server.address() as AddressInfo).port;
}

async function close(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
