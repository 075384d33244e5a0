import { configReaders, type JsonSchema } from '@backplane/plugin-api';

export interface MysqlConfig {
  host: string;
  port: number;
  user: string;
  password: string;
  /** Bound on connecting and on each discovery query, in seconds. */
  connectTimeoutSeconds: number;
}

export const DEFAULT_PORT = 3306;
export const DEFAULT_TIMEOUT_SECONDS = 10;

export const mysqlConfigSchema: JsonSchema = {
  type: 'object',
  required: ['host', 'user'],
  additionalProperties: false,
  properties: {
    host: { type: 'string', minLength: 1, maxLength: 255 },
    port: { type: 'integer', minimum: 1, maximum: 65535, default: DEFAULT_PORT },
    user: { type: 'string', minLength: 1, maxLength: 80 },
    password: { type: 'string', maxLength: 1024 },
    connectTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 300, default: DEFAULT_TIMEOUT_SECONDS },
  },
};

const { text, integer } = configReaders('mysql');

export function parseMysqlConfig(config: Record<string, unknown>): MysqlConfig {
  return {
    host: text(config, 'host', true)!,
    port: integer(config, 'port', DEFAULT_PORT, 65535),
    user: text(config, 'user', true)!,
    password: text(config, 'password', false) ?? '',
    connectTimeoutSeconds: integer(config, 'connectTimeoutSeconds', DEFAULT_TIMEOUT_SECONDS, 300),
  };
}
