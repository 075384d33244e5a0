import type { TestContext } from 'node:test';
import { createServer, type Socket } from 'node:net';

/**
 * A stand-in PostgreSQL server that asks every client for its password in clear text
 * (AuthenticationCleartextPassword) and records what it is sent, then refuses the login
 * (SQLSTATE 28P01). The test server trusts every local connection and never asks; this one
 * shows what password libpq really sends. It speaks only that much of the protocol (v3):
 * it declines SSL and GSS encryption, reads the startup packet, asks, reads the answer.
 */
export interface PasswordStandIn {
  port: number;
  /** Every password sent, in order. */
  received: string[];
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

function errorResponse(message: string): Buffer {
  const fields = Buffer.concat([
    ...[
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '28P01'],
      ['M', message],
    ].map(([code, text]) => Buffer.from(`${code}${text}\0`)),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write('E', 0);
  head.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([head, fields]);
}

function serve(socket: Socket, received: string[]): void {
  let buffer = Buffer.alloc(0);
  let started = false;
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (!started) {
        if (buffer.length < 8) return;
        const length = buffer.readInt32BE(0);
        if (buffer.length < length) return;
        const code = buffer.readInt32BE(4);
        buffer = buffer.subarray(length);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          socket.write('N');
          continue;
        }
        started = true;
        const ask = Buffer.alloc(9);
        ask.write('R', 0);
        ask.writeInt32BE(8, 1);
        ask.writeInt32BE(3, 5); // AuthenticationCleartextPassword
        socket.write(ask);
        continue;
      }
      if (buffer.length < 5) return;
      const length = buffer.readInt32BE(1);
      if (buffer.length < length + 1) return;
      if (buffer[0] === 'p'.charCodeAt(0)) {
        const body = buffer.subarray(5, length + 1);
        received.push(body.subarray(0, body.indexOf(0)).toString('utf8'));
        socket.end(errorResponse('password authentication failed for user "backup"'));
      }
      buffer = buffer.subarray(length + 1);
    }
  });
}

/** Listens on 127.0.0.1, port chosen by the system; closed when the test ends. */
export async function passwordStandIn(t: TestContext): Promise<PasswordStandIn> {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    serve(socket, received);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the stand-in has no port');
  return { port: address.port, received };
}
