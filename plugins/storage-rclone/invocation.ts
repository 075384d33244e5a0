/**
 * Pure builders for rclone's argv and environment. Settings (and with them every secret) travel
 * only in the child's environment, as `RCLONE_CONFIG_<REMOTE>_<OPTION>`; argv holds the command,
 * flags and `bpremote:<path>` and nothing from the target's settings but its path.
 */

/** The name of the on-the-fly remote every child process is configured with. */
export const REMOTE = 'bpremote';
const ENV_PREFIX = `RCLONE_CONFIG_${REMOTE.toUpperCase()}_`;

/** Where a remote lives: its backend, its settings (password options already obscured) and its root. */
export interface RemoteSpec {
  backend: string;
  /** Option name -> value as rclone reads it from its environment. */
  options: Record<string, string>;
  /** The target's root inside the remote, normalised (see keys.ts). */
  root: string;
}

/** Timeouts and retries: `standard` for transfers, `probe` (short) for testConnection. */
export type Profile = 'standard' | 'probe';

export const PROFILES: Record<Profile, { contimeout: string; timeout: string; lowLevelRetries: number }> = {
  // --timeout is rclone's IO *idle* timeout; a slow source (a dump waiting on a lock) must not trip it.
  standard: { contimeout: '15s', timeout: '5m', lowLevelRetries: 3 },
  probe: { contimeout: '5s', timeout: '10s', lowLevelRetries: 1 },
};

/** Flags every invocation carries: quiet but for errors, no prompts, no stats, bounded retries. */
export function commonFlags(profile: Profile): string[] {
  const p = PROFILES[profile];
  return [
    '--log-level',
    'ERROR',
    '--stats',
    '0',
    '--ask-password=false',
    '--retries',
    '1',
    '--low-level-retries',
    String(p.lowLevelRetries),
    '--contimeout',
    p.contimeout,
    '--timeout',
    p.timeout,
  ];
}

/** `bpremote:<root>/<relative>`; the argument rclone is given for an object or folder. */
export function remotePath(root: string, relative = ''): string {
  const rel = relative.replace(/\/+$/, '');
  if (rel === '') return `${REMOTE}:${root}`;
  if (root === '') return `${REMOTE}:${rel}`;
  return `${REMOTE}:${root.endsWith('/') ? root : `${root}/`}${rel}`;
}

export type Operation =
  | { op: 'rcat'; path: string; size?: number }
  | { op: 'moveto'; from: string; to: string }
  | { op: 'cat'; path: string; offset?: number; count?: number }
  | { op: 'stat'; path: string }
  /** Recursive unless `recursive` is false. */
  | { op: 'list'; path: string; recursive?: boolean }
  | { op: 'deletefile'; path: string }
  | { op: 'about'; path: string }
  | { op: 'obscure' }
  | { op: 'providers' };

/** The argv (without the binary) of one operation. `path`s are remote-relative (see remotePath). */
export function buildArgv(operation: Operation, root: string, profile: Profile = 'standard'): string[] {
  const flags = commonFlags(profile);
  switch (operation.op) {
    case 'rcat':
      return [
        'rcat',
        ...flags,
        ...(operation.size === undefined ? [] : ['--size', String(operation.size)]),
        remotePath(root, operation.path),
      ];
    case 'moveto':
      // --ignore-times: a same-size object written in the same second must still be replaced.
      return ['moveto', ...flags, '--ignore-times', remotePath(root, operation.from), remotePath(root, operation.to)];
    case 'cat':
      return [
        'cat',
        ...flags,
        ...(operation.offset ? ['--offset', String(operation.offset)] : []),
        ...(operation.count === undefined ? [] : ['--count', String(operation.count)]),
        remotePath(root, operation.path),
      ];
    case 'stat':
      return ['lsjson', ...flags, '--stat', '--no-mimetype', '--use-server-modtime', remotePath(root, operation.path)];
    case 'list':
      return [
        'lsjson',
        ...flags,
        ...(operation.recursive === false ? [] : ['-R']),
        '--files-only',
        '--no-mimetype',
        '--use-server-modtime',
        remotePath(root, operation.path),
      ];
    case 'deletefile':
      return ['deletefile', ...flags, remotePath(root, operation.path)];
    case 'about':
      return ['about', ...flags, '--json', remotePath(root, operation.path)];
    case 'obscure':
      // `-`: the secret comes on stdin, never on argv.
      return ['obscure', '-'];
    case 'providers':
      return ['config', 'providers'];
  }
}

/** The environment variable rclone reads an option of the remote from. */
export function optionEnvName(option: string): string {
  return `${ENV_PREFIX}${option.toUpperCase().replace(/-/g, '_')}`;
}

/** rclone's null config: nothing is read from, or written to, any rclone.conf. */
export const NULL_CONFIG = process.platform === 'win32' ? 'NUL' : '/dev/null';

/**
 * The child's environment: the caller's environment without anything rclone would read as
 * configuration (`RCLONE_*`) and without Backplane's own settings (`BACKPLANE_*`, which hold the
 * master key and database URL), then the remote's definition.
 */
export function buildEnv(base: Record<string, string | undefined>, spec?: RemoteSpec): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    const upper = name.toUpperCase();
    if (upper.startsWith('RCLONE_') || upper.startsWith('BACKPLANE_')) continue;
    env[name] = value;
  }
  env.RCLONE_CONFIG = NULL_CONFIG;
  if (spec) {
    env[`${ENV_PREFIX}TYPE`] = spec.backend;
    for (const [name, value] of Object.entries(spec.options)) env[optionEnvName(name)] = value;
  }
  return env;
}
