import type { FastifyServerOptions } from 'fastify';

/** One-time install tokens travel in the path; they must never reach a log line. */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/install\/)[^/?#]+/g, '$1[REDACTED]')
    .replace(/([?&](?:token|code|state)=)[^&#]*/gi, '$1[REDACTED]');
}

/** pino options: secrets in headers are censored, URLs are scrubbed of tokens. */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["x-api-key"]',
        'req.headers["x-agent-token"]',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.password',
        '*.token',
        '*.secret',
      ],
      censor: '[REDACTED]',
    },
    serializers: {
      req(request: { method: string; url: string; ip?: string; id?: string }) {
        return { method: request.method, url: redactUrl(request.url), remoteAddress: request.ip, reqId: request.id };
      },
    },
  };
}
