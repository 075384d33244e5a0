import { pino, type Logger } from 'pino';

export type AgentLogger = Logger;

/**
 * JSON lines on stdout. Secrets are censored by key wherever they appear in a logged object,
 * as a second line of defence: the agent never passes tokens or passwords to the logger.
 */
export function createAgentLogger(level: string, destination?: NodeJS.WritableStream): AgentLogger {
  const options = {
    level,
    base: { pid: process.pid, component: 'agent' },
    redact: {
      paths: [
        'token',
        '*.token',
        'password',
        '*.password',
        '*.dbPassword',
        'headers["x-agent-token"]',
        '*.headers["x-agent-token"]',
        'code',
        'enrollCode',
      ],
      censor: '[REDACTED]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
