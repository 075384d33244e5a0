import { PROJECT_ROOT } from '../engine/index.ts';
import { readFileSync, existsSync } from 'node:fs';
import { resolve, join, isAbsolute } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Config } from './config.ts';
import { parseOidcProviders } from './oidc-providers.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Kind = 'string' | 'int' | 'list' | 'duration' | 'switch' | 'oidc-providers';
interface Entry {
  key: keyof Config;
  env: string;
  kind: Kind;
  min?: number;
  /** Where the key sits in the YAML file when not at the top: `section.key`. */
  yaml?: string;
}

/** One table: the environment variable, the YAML key (the config key) and how to parse it. */
const ENTRIES: Entry[] = [
  { key: 'host', env: 'BACKPLANE_HOST', kind: 'string' },
  { key: 'port', env: 'BACKPLANE_PORT', kind: 'int', min: 0 },
  { key: 'dataDir', env: 'BACKPLANE_DATA_DIR', kind: 'string' },
  { key: 'databaseUrl', env: 'BACKPLANE_DATABASE_URL', kind: 'string' },
  { key: 'secretKey', env: 'BACKPLANE_SECRET_KEY', kind: 'string' },
  { key: 'ageIdentityFile', env: 'BACKPLANE_AGE_IDENTITY_FILE', kind: 'string' },
  { key: 'externalUrl', env: 'BACKPLANE_EXTERNAL_URL', kind: 'string' },
  { key: 'webauthnRpId', env: 'BACKPLANE_WEBAUTHN_RP_ID', kind: 'string' },
  { key: 'webauthnOrigins', env: 'BACKPLANE_WEBAUTHN_ORIGINS', kind: 'list' },
  { key: 'trustedProxies', env: 'BACKPLANE_TRUSTED_PROXIES', kind: 'list' },
  { key: 'corsOrigins', env: 'BACKPLANE_CORS_ORIGINS', kind: 'list' },
  { key: 'logLevel', env: 'BACKPLANE_LOG_LEVEL', kind: 'string' },
  { key: 'plugins', env: 'BACKPLANE_PLUGINS', kind: 'list' },
  { key: 'pluginsDisabled', env: 'BACKPLANE_PLUGINS_DISABLED', kind: 'list' },
  { key: 'maxConcurrent', env: 'BACKPLANE_MAX_CONCURRENT', kind: 'int', min: 1 },
  { key: 'nodeOfflineSeconds', env: 'BACKPLANE_NODE_OFFLINE_SECONDS', kind: 'int', min: 1 },
  { key: 'commandLeaseSeconds', env: 'BACKPLANE_COMMAND_LEASE_SECONDS', kind: 'int', min: 1 },
  { key: 'tokenRotationGraceSeconds', env: 'BACKPLANE_TOKEN_ROTATION_GRACE', kind: 'duration', min: 0 },
  { key: 'localFsRoots', env: 'BACKPLANE_LOCAL_FS_ROOTS', kind: 'list' },
  { key: 'storageHealthIntervalSeconds', env: 'BACKPLANE_STORAGE_HEALTH_INTERVAL', kind: 'int', min: 0 },
  { key: 'repositoryLockWaitSeconds', env: 'BACKPLANE_REPOSITORY_LOCK_WAIT', kind: 'int', min: 0 },
  { key: 'tempSweepIntervalSeconds', env: 'BACKPLANE_TEMP_SWEEP_INTERVAL', kind: 'int', min: 0 },
  { key: 'notifyTimeoutSeconds', env: 'BACKPLANE_NOTIFY_TIMEOUT', kind: 'duration', min: 1 },
  { key: 'notifyRetryBaseSeconds', env: 'BACKPLANE_NOTIFY_RETRY_BASE', kind: 'duration', min: 1 },
  { key: 'notifyMaxAttempts', env: 'BACKPLANE_NOTIFY_MAX_ATTEMPTS', kind: 'int', min: 1 },
  { key: 'notifyCoalesceSeconds', env: 'BACKPLANE_NOTIFY_COALESCE', kind: 'duration', min: 0 },
  { key: 'slaScanIntervalSeconds', env: 'BACKPLANE_SLA_SCAN_INTERVAL', kind: 'duration', min: 0 },
  { key: 'rtoEvidenceMaxAgeSeconds', env: 'BACKPLANE_RTO_EVIDENCE_MAX_AGE', kind: 'duration', min: 3600 },
  { key: 'jwtTtlSeconds', env: 'BACKPLANE_JWT_TTL', kind: 'duration', min: 60 },
  { key: 'loginLockoutThreshold', env: 'BACKPLANE_LOGIN_LOCKOUT_THRESHOLD', kind: 'int', min: 1 },
  { key: 'loginLockoutSeconds', env: 'BACKPLANE_LOGIN_LOCKOUT_DURATION', kind: 'duration', min: 1 },
  { key: 'loginDeviceMaxFailures', env: 'BACKPLANE_LOGIN_DEVICE_MAX_FAILURES', kind: 'int', min: 1 },
  { key: 'updateFeedUrl', env: 'BACKPLANE_UPDATE_FEED_URL', kind: 'string' },
  { key: 'updateCheckTimeoutMs', env: 'BACKPLANE_UPDATE_CHECK_TIMEOUT_MS', kind: 'int', min: 1 },
  { key: 'googleAuthUrl', env: 'BACKPLANE_GOOGLE_AUTH_URL', kind: 'string' },
  { key: 'googleTokenUrl', env: 'BACKPLANE_GOOGLE_TOKEN_URL', kind: 'string' },
  { key: 'googleApiUrl', env: 'BACKPLANE_GOOGLE_API_URL', kind: 'string' },
  { key: 'console', env: 'BACKPLANE_CONSOLE', kind: 'switch' },
  { key: 'consoleDir', env: 'BACKPLANE_CONSOLE_DIR', kind: 'string' },
  { key: 'oidcProviders', env: 'BACKPLANE_OIDC_PROVIDERS', kind: 'oidc-providers', yaml: 'oidc.providers' },
  { key: 'localLogin', env: 'BACKPLANE_LOCAL_LOGIN', kind: 'string', yaml: 'auth.localLogin' },
  { key: 'breakGlassUsers', env: 'BACKPLANE_BREAK_GLASS_USERS', kind: 'list', yaml: 'auth.breakGlassUsers' },
];

/** The YAML path of an entry: its own key at the top, or `section.key`. */
const yamlPath = (e: Entry): string[] => (e.yaml ?? e.key).split('.');

function defaults(): Config {
  return {
    host: '0.0.0.0',
    port: 8340,
    dataDir: './data',
    databaseUrl: '',
    secretKey: undefined,
    ageIdentityFile: undefined,
    externalUrl: undefined,
    webauthnRpId: undefined,
    webauthnOrigins: [],
    // Nobody: X-Forwarded-For from an untrusted peer would let any client pick its own address.
    trustedProxies: [],
    // None: a console served from another origin is named here explicitly (core/http/cors.ts).
    corsOrigins: [],
    logLevel: 'info',
    plugins: [],
    pluginsDisabled: [],
    maxConcurrent: 2,
    nodeOfflineSeconds: 45,
    commandLeaseSeconds: 120,
    // The reference's grace: a day to re-configure every agent that used the old token.
    tokenRotationGraceSeconds: 24 * 3600,
    // Where data to back up usually lives; system folders (/proc, /sys, /boot, /root, /usr) stay out.
    localFsRoots: ['/etc', '/home', '/mnt', '/opt', '/srv', '/var'],
    runLimitCheckMs: 15_000,
    runLimitMinuteMs: 60_000,
    storageHealthIntervalSeconds: 300,
    // a prune of a large repository holds its exclusive lock for minutes
    repositoryLockWaitSeconds: 600,
    tempSweepIntervalSeconds: 6 * 3600,
    notifyTimeoutSeconds: 15,
    // 30 s, 1 min, 2 min ... capped at 1 h: ten attempts span about three hours.
    notifyRetryBaseSeconds: 30,
    notifyMaxAttempts: 10,
    notifyCoalesceSeconds: 300,
    // The reference scans every 15 minutes.
    slaScanIntervalSeconds: 900,
    rtoEvidenceMaxAgeSeconds: 30 * 86400,
    jwtTtlSeconds: 24 * 3600,
    // NIST SP 800-63B 5.2.2: at most 100 consecutive failed attempts on one account.
    loginLockoutThreshold: 100,
    loginLockoutSeconds: 3600,
    // OWASP's device cookies: a trusted client that keeps failing is an attacker holding a stolen cookie.
    loginDeviceMaxFailures: 10,
    updateFeedUrl: 'https://api.github.com/repos/backplane-dev/backplane/releases/latest',
    updateCheckTimeoutMs: 5000,
    googleAuthUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    googleTokenUrl: 'https://oauth2.googleapis.com/token',
    googleApiUrl: 'https://www.googleapis.com',
    console: true,
    consoleDir: undefined,
    projectRoot: PROJECT_ROOT,
    oidcProviders: [],
    localLogin: 'all',
    breakGlassUsers: [],
  };
}

// The words an on/off setting accepts; YAML's own true and false arrive as booleans.
const SWITCH = new Map([
  ['on', true],
  ['true', true],
  ['1', true],
  ['yes', true],
  ['off', false],
  ['false', false],
  ['0', false],
  ['no', false],
]);
const DURATION = /^(\d+)\s*(s|m|h|d)?$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

function parseValue(entry: Entry, raw: unknown, source: string): unknown {
  const fail = (why: string) => new ConfigError(`${source}: ${why}`);
  switch (entry.kind) {
    case 'string':
      if (typeof raw !== 'string' && typeof raw !== 'number') throw fail('must be a string');
      return String(raw);
    case 'list':
      if (Array.isArray(raw))
        return raw
          .map(String)
          .map((s) => s.trim())
          .filter(Boolean);
      if (typeof raw !== 'string') throw fail('must be a comma-separated string or a list');
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    case 'int': {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (!Number.isInteger(n) || n < (entry.min ?? 0)) throw fail(`must be an integer >= ${entry.min ?? 0}`);
      return n;
    }
    case 'duration': {
      const m = DURATION.exec(String(raw).trim());
      if (!m) throw fail('must be a duration such as 3600, 90m, 24h or 7d');
      const seconds = Number(m[1]) * UNIT_SECONDS[m[2] ?? 's']!;
      if (seconds < (entry.min ?? 0)) throw fail(`must be at least ${entry.min} seconds`);
      return seconds;
    }
    case 'switch': {
      if (typeof raw === 'boolean') return raw;
      const value = SWITCH.get(String(raw).trim().toLowerCase());
      if (value === undefined) throw fail('must be on or off (also true/false, 1/0, yes/no)');
      return value;
    }
    case 'oidc-providers':
      return parseOidcProviders(raw, fail);
  }
}

function readFileConfig(env: NodeJS.ProcessEnv, cwd: string): { values: Record<string, unknown>; path?: string } {
  const named = env.BACKPLANE_CONFIG;
  const path = named ? resolve(cwd, named) : join(cwd, 'config', 'backplane.yaml');
  if (!existsSync(path)) {
    if (named) throw new ConfigError(`BACKPLANE_CONFIG: file not found: ${path}`);
    return { values: {} };
  }
  const parsed: unknown = parseYaml(readFileSync(path, 'utf8'));
  if (parsed === null || parsed === undefined) return { values: {}, path };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${path}: must be a mapping of keys`);
  return { values: parsed as Record<string, unknown>, path };
}

/** Unknown YAML keys are an error, at the top and inside the sections some keys live in (`oidc`, `auth`). */
function checkKnownKeys(values: Record<string, unknown>, path: string | undefined): void {
  const paths = ENTRIES.map(yamlPath);
  for (const key of Object.keys(values)) {
    const inSection = paths.filter((p) => p.length === 2 && p[0] === key).map((p) => p[1]);
    if (inSection.length === 0) {
      if (!paths.some((p) => p.length === 1 && p[0] === key)) throw new ConfigError(`${path}: unknown key "${key}"`);
      continue;
    }
    const section = values[key];
    if (section === null || section === undefined) continue;
    if (typeof section !== 'object' || Array.isArray(section))
      throw new ConfigError(`${path}: ${key} must be a mapping of keys (${inSection.join(', ')})`);
    for (const sub of Object.keys(section))
      if (!inSection.includes(sub)) throw new ConfigError(`${path}: unknown key "${key}.${sub}"`);
  }
}

function yamlValue(values: Record<string, unknown>, path: string[]): unknown {
  let value: unknown = values;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The origin a browser would send for this value (lower-case host, no default port), or undefined
 * when it is no http(s) URL. A CORS origin is compared as an exact string, so anything else never matches.
 */
function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the configuration: defaults, then the optional YAML file, then the environment,
 * then explicit overrides (tests). Unknown YAML keys are an error so typos do not pass silently.
 */
export function loadConfig(
  options: { env?: NodeJS.ProcessEnv; cwd?: string; overrides?: Partial<Config> } = {},
): Config {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const config = defaults() as unknown as Record<string, unknown>;
  const file = readFileConfig(env, cwd);
  checkKnownKeys(file.values, file.path);
  for (const entry of ENTRIES) {
    const fromFile = yamlValue(file.values, yamlPath(entry));
    if (fromFile !== undefined && fromFile !== null)
      config[entry.key] = parseValue(entry, fromFile, `${file.path}: ${yamlPath(entry).join('.')}`);
    const fromEnv = env[entry.env];
    if (fromEnv !== undefined && fromEnv !== '') config[entry.key] = parseValue(entry, fromEnv, entry.env);
  }
  Object.assign(config, options.overrides ?? {});
  const result = config as unknown as Config;
  result.dataDir = resolve(cwd, result.dataDir);
  if (result.ageIdentityFile) result.ageIdentityFile = resolve(cwd, result.ageIdentityFile);
  if (result.consoleDir) result.consoleDir = resolve(cwd, result.consoleDir);
  if (!result.databaseUrl) result.databaseUrl = `sqlite:${join(result.dataDir, 'backplane.db')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(result.databaseUrl)) {
    throw new ConfigError('BACKPLANE_DATABASE_URL: must start with sqlite: or postgres://');
  }
  const relativeRoot = result.localFsRoots.find((r) => !isAbsolute(r));
  if (relativeRoot !== undefined)
    throw new ConfigError(`BACKPLANE_LOCAL_FS_ROOTS: "${relativeRoot}" must be an absolute path`);
  result.localFsRoots = result.localFsRoots.map((r) => resolve(r));
  const badOrigin = result.corsOrigins.find((o) => originOf(o) !== o);
  if (badOrigin !== undefined) {
    const fixed = originOf(badOrigin);
    throw new ConfigError(
      `BACKPLANE_CORS_ORIGINS: "${badOrigin}" is not an exact origin (scheme://host[:port], no path, no wildcard)` +
        (fixed ? `; as browsers send it: ${fixed}` : ''),
    );
  }
  if (result.localLogin !== 'all' && result.localLogin !== 'break-glass')
    throw new ConfigError('BACKPLANE_LOCAL_LOGIN (auth.localLogin): must be all or break-glass');
  // Without a named account, a provider that is down or misconfigured would lock everyone out.
  if (result.localLogin === 'break-glass' && result.breakGlassUsers.length === 0)
    throw new ConfigError(
      'BACKPLANE_LOCAL_LOGIN=break-glass needs BACKPLANE_BREAK_GLASS_USERS (auth.breakGlassUsers): ' +
        'the accounts that may still sign in with a password',
    );
  if (result.externalUrl) result.externalUrl = result.externalUrl.replace(/\/+$/, '');
  result.webauthnOrigins = result.webauthnOrigins.map((o) => o.replace(/\/+$/, ''));
  return result;
}
