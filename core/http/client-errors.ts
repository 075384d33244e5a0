import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.ts';

/** Node's HTTP parser errors (before any request exists), by the code the parser gives them. */
const PARSER_CODES: Record<string, ErrorCode> = {
  HPE_HEADER_OVERFLOW: 'HEADERS_TOO_LARGE',
  ERR_HTTP_REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  HPE_INVALID_CONTENT_LENGTH: 'INVALID_CONTENT_LENGTH',
  HPE_UNEXPECTED_CONTENT_LENGTH: 'INVALID_CONTENT_LENGTH',
};

function envelope(code: ErrorCode): { status: number; body: string } {
  const [status, message] = ERROR_CATALOGUE[code];
  return { status, body: JSON.stringify({ code, message }) };
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (headers or URL over the size
 * limit, a malformed request line or Content-Length, a request that took too long) never reaches
 * Fastify's error handler, so the envelope is written to the socket here, then the connection
 * closes (the parser cannot resynchronise on it).
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const code = PARSER_CODES[err.code ?? ''] ?? 'MALFORMED_REQUEST';
  const { status, body } = envelope(code);
  this.log.info({ code, parserCode: err.code, status }, 'request refused by the HTTP parser');
  if (socket.writable) {
    socket.write(
      [
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'X-Content-Type-Options: nosniff',
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
  }
  socket.destroy();
}

/** Fastify's `frameworkErrors`: router-level refusals (a URL that cannot be decoded, a path parameter over the length limit). */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const code: ErrorCode =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'URI_TOO_LONG'
      : error.code === 'FST_ERR_BAD_URL'
        ? 'INVALID_URL'
        : 'INVALID_INPUT';
  const [status, message] = ERROR_CATALOGUE[code];
  request.log.info({ code, status }, 'request refused by the router');
  void reply
    .code(status)
    .header('x-content-type-options', 'nosniff')
    .type('application/json; charset=utf-8')
    .send({ code, message });
}
