import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';

export class AgentConfigError extends Error {
  override name = 'AgentConfigError';
}

export interface AgentConfig {
  /** The master's base URL without a trailing slash. */
  master: string;
  /** The node token given directly (flag, env or file); prefer `tokenFile`, which keeps it out of process listings. */
  token?: string;
  tokenFile?: string;
  /** One-time code exchanged for a token when the token file is missing or empty. */
  enrollCode?: string;
  tempDir: string;
  caCertFile?: string;
  /** An http(s) proxy the agent reaches the master through. */
  proxyUrl?: string;
  heartbeatSeconds: number;
  pollSeconds: number;
  stopGraceSeconds: number;
  /** Extra plugins, as BACKPLANE_PLUGINS is for the master. */
  plugins: string[];
  /** Plugins not to load, as BACKPLANE_PLUGINS_DISABLED is for the master. */
  pluginsDisabled?: string[];
  logLevel: string;
}

type Kind = 'string' | 'seconds' | 'list';
interface Field {
  key: keyof AgentConfig;
  flag?: string;
  env?: string;
  kind: Kind;
  min?: number;
}

/** One table: the flag, the environment variable and the YAML key (the config key). */
const FIELDS: Field[] = [
  { key: 'master', flag: 'master', env: 'BACKPLANE_AGENT_MASTER', kind: 'string' },
  { key: 'token', flag: 'token', env: 'BACKPLANE_AGENT_TOKEN', kind: 'string' },
  { key: 'tokenFile', flag: 'token-file', env: 'BACKPLANE_AGENT_TOKEN_FILE', kind: 'string' },
  { key: 'enrollCode', env: 'BACKPLANE_AGENT_ENROLL_CODE', kind: 'string' },
  { key: 'tempDir', flag: 'temp-dir', env: 'BACKPLANE_AGENT_TEMP_DIR', kind: 'string' },
  { key: 'caCertFile', flag: 'ca-cert', env: 'BACKPLANE_AGENT_CA_CERT_FILE', kind: 'string' },
  { key: 'proxyUrl', flag: 'proxy', env: 'BACKPLANE_AGENT_PROXY_URL', kind: 'string' },
  {
    key: 'heartbeatSeconds',
    flag: 'heartbeat-seconds',
    env: 'BACKPLANE_AGENT_HEARTBEAT_SECONDS',
    kind: 'seconds',
    min: 1,
  },
  { key: 'pollSeconds', flag: 'poll-seconds', env: 'BACKPLANE_AGENT_POLL_SECONDS', kind: 'seconds', min: 1 },
  {
    key: 'stopGraceSeconds',
    flag: 'stop-grace-seconds',
    env: 'BACKPLANE_AGENT_STOP_GRACE_SECONDS',
    kind: 'seconds',
    min: 0,
  },
  { key: 'plugins', env: 'BACKPLANE_PLUGINS', kind: 'list' },
  { key: 'pluginsDisabled', env: 'BACKPLANE_PLUGINS_DISABLED', kind: 'list' },
  { key: 'logLevel', flag: 'log-level', env: 'BACKPLANE_AGENT_LOG_LEVEL', kind: 'string' },
];

export const AGENT_USAGE = `Usage: backplane agent --master URL (--token-file PATH | --token TOKEN) [options]

  --master URL               the master's base URL (http or https)
  --token-file PATH          file holding the node token (written by enrollment)
  --token TOKEN              the node token itself (visible in process listings; prefer --token-file)
  --temp-dir DIR             spools and provider scratch space (default: <tmp>/backplane-agent)
  --ca-cert FILE             PEM bundle trusted for an https master
  --proxy URL                http(s) proxy to reach the master through
  --config FILE              YAML file with the same settings (camelCase keys)
  --heartbeat-seconds N      default 15
  --poll-seconds N           default 5
  --stop-grace-seconds N     time running work gets on SIGTERM/SIGINT (default 30)
  --log-level LEVEL          pino level (default info)

Environment: BACKPLANE_AGENT_MASTER, _TOKEN, _TOKEN_FILE, _TEMP_DIR, _CA_CERT_FILE, _PROXY_URL, _CONFIG,
_HEARTBEAT_SECONDS, _POLL_SECONDS, _STOP_GRACE_SECONDS, _ENROLL_CODE. Flags win over the
environment, the environment over the file.`;

function defaults(): Omit<AgentConfig, 'master'> {
  return {
    tempDir: join(tmpdir(), 'backplane-agent'),
    heartbeatSeconds: 15,
    pollSeconds: 5,
    stopGraceSeconds: 30,
    plugins: [],
    pluginsDisabled: [],
    logLevel: 'info',
  };
}

function parseValue(field: Field, raw: unknown, origin: string): unknown {
  if (field.kind === 'list') {
    if (Array.isArray(raw)) return raw.map(String).filter((s) => s !== '');
    return String(raw)
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  if (field.kind === 'seconds') {
    const text = String(raw).trim();
    const n = Number(text);
    if (text === '' || !Number.isInteger(n) || n < (field.min ?? 0)) {
      throw new AgentConfigError(
        `${origin} must be a whole number of seconds, at least ${field.min ?? 0} (got ${JSON.stringify(raw)})`,
      );
    }
    return n;
  }
  if (typeof raw !== 'string' && typeof raw !== 'number') throw new AgentConfigError(`${origin} must be a string`);
  return String(raw).trim();
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new AgentConfigError(`cannot read the config file ${path}: ${(err as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text);
  } catch (err) {
    throw new AgentConfigError(`the config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new AgentConfigError(`the config file ${path} must hold a mapping of settings`);
  const known = new Set<string>(FIELDS.map((f) => f.key));
  const unknown = Object.keys(parsed).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new AgentConfigError(
      `the config file ${path} has unknown settings: ${unknown.join(', ')} (known: ${[...known].join(', ')})`,
    );
  return parsed as Record<string, unknown>;
}

/** An absolute http(s) URL without credentials, query or fragment; returned without a trailing slash. */
export function normaliseMasterUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AgentConfigError(
      `master must be an absolute URL such as https://backup.example.com (got ${JSON.stringify(raw)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AgentConfigError(`master must use http or https (got ${url.protocol.replace(/:$/, '')})`);
  if (url.username || url.password)
    throw new AgentConfigError('master must not contain credentials; give the node token with --token-file');
  if (url.search || raw.includes('?')) throw new AgentConfigError('master must not contain a query string');
  if (url.hash || raw.includes('#')) throw new AgentConfigError('master must not contain a fragment');
  return url.href.replace(/\/+$/, '');
}

/** An absolute http(s) proxy URL without path, query or fragment. */
export function normaliseProxyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AgentConfigError(
      `proxy must be an absolute URL such as http://proxy.example:3128 (got ${JSON.stringify(raw)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new AgentConfigError(`proxy must use http or https (got ${url.protocol.replace(/:$/, '')})`);
  if (url.pathname !== '/' || url.search || url.hash)
    throw new AgentConfigError('proxy must not contain a path, query or fragment');
  return url.href.replace(/\/+$/, '');
}

export interface ConfigInputs {
  argv: string[];
  env: Record<string, string | undefined>;
  /** Resolves relative paths (default: process.cwd()). */
  cwd?: string;
}

/**
 * The agent's settings: flags win over the environment, the environment over the YAML file
 * (`--config` / BACKPLANE_AGENT_CONFIG), which wins over the defaults.
 */
export function loadAgentConfig({ argv, env, cwd = process.cwd() }: ConfigInputs): AgentConfig {
  const options: Record<string, { type: 'string' }> = { config: { type: 'string' } };
  for (const f of FIELDS) if (f.flag) options[f.flag] = { type: 'string' };
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Record<
      string,
      string | undefined
    >;
  } catch (err) {
    throw new AgentConfigError(`${(err as Error).message}\n\n${AGENT_USAGE}`);
  }

  const configPath = (flags.config as string | undefined) ?? (env.BACKPLANE_AGENT_CONFIG || undefined);
  const file = configPath ? readConfigFile(resolve(cwd, configPath)) : {};

  const merged: Record<string, unknown> = { ...defaults() };
  for (const f of FIELDS) {
    const flagValue = f.flag ? flags[f.flag] : undefined;
    const envValue = f.env ? env[f.env] : undefined;
    if (flagValue !== undefined) merged[f.key] = parseValue(f, flagValue, `--${f.flag}`);
    else if (envValue !== undefined && envValue !== '') merged[f.key] = parseValue(f, envValue, f.env!);
    else if (file[f.key] !== undefined && file[f.key] !== null)
      merged[f.key] = parseValue(f, file[f.key], `${f.key} (config file)`);
  }
  for (const key of ['token', 'tokenFile', 'enrollCode', 'caCertFile', 'proxyUrl'] as const) {
    if (merged[key] === '') delete merged[key];
  }

  if (typeof merged.master !== 'string' || merged.master === '') {
    throw new AgentConfigError('the master URL is required (--master or BACKPLANE_AGENT_MASTER)');
  }
  merged.master = normaliseMasterUrl(merged.master);
  if (typeof merged.proxyUrl === 'string') merged.proxyUrl = normaliseProxyUrl(merged.proxyUrl);
  if (!merged.token && !merged.tokenFile && !merged.enrollCode) {
    throw new AgentConfigError(
      'a node token is required: --token-file PATH (or --token, BACKPLANE_AGENT_TOKEN_FILE, BACKPLANE_AGENT_TOKEN),' +
        ' or an enrollment code in BACKPLANE_AGENT_ENROLL_CODE',
    );
  }
  if (typeof merged.token === 'string' && /\s/.test(merged.token))
    throw new AgentConfigError('the node token must not contain white space');
  for (const key of ['tokenFile', 'tempDir', 'caCertFile'] as const) {
    if (typeof merged[key] === 'string') merged[key] = resolve(cwd, merged[key]);
  }
  return merged as unknown as AgentConfig;
}
