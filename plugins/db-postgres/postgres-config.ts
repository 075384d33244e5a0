import { configReaders, type JsonSchema } from '@backplane/plugin-api';

export interface PostgresConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  /** The database discover and testConnection connect to; `postgres` when absent. */
  database?: string;
  /** Bound on connecting and on each discovery query, in seconds. */
  connectTimeoutSeconds: number;
}

export const DEFAULT_PORT = 5432;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export const postgresConfigSchema: JsonSchema = {
  type: 'object',
  required: ['host', 'user'],
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, maxLength: 255 },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: DEFAULT_PORT },
    user: { type: 'string', minLength: 1, maxLength: 63 },
    password: { type: 'string', maxLength: 1024 },
    database: { type: 'string', minLength: 1, maxLength: 63 },
    connectTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 300, default: DEFAULT_TIMEOUT_SECONDS },
  },
};

const { text, integer } = configReaders('postgresql');

export function parsePostgresConfig(config: Record<string, unknown>): PostgresConfig {
  const database = text(config, 'database', false);
  return {
    host: text(config, 'host', true)!,
    port: integer(config, 'port', DEFAULT_PORT, 65535),
    user: text(config, 'user', true)!,
    password: text(config, 'password', false) ?? '',
    ...(database === undefined ? {} : { database }),
    connectTimeoutSeconds: integer(config, 'connectTimeoutSeconds', DEFAULT_TIMEOUT_SECONDS, 300),
  };
}
