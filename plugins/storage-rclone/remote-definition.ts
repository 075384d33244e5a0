import { ProviderError } from '@backplane/plugin-api';
import { envValue, isSecretOption, passwordOptions, ROOT_FIELD } from './backend-options.ts';
import type { RcloneBackend } from './catalogue.ts';
import { notInstalled, reasonFromStderr, redact, trimReason } from './errors.ts';
import { buildArgv, buildEnv, type RemoteSpec } from './invocation.ts';
import { normaliseRoot } from './keys.ts';
import { runRclone } from './rclone-process.ts';

/**
 * A target's config turned into what a child process needs: the backend, the options (with
 * password-type ones still in clear, to be obscured), the root, and the values to redact.
 */
export interface RemoteDefinition {
  backend: string;
  root: string;
  /** Options passed as they are. */
  plain: Record<string, string>;
  /** Options rclone expects obscured (its IsPassword options). */
  passwords: Record<string, string>;
  /** Values never to show in a message (secret options, in clear). */
  secretValues: string[];
}

const OPTION_NAME = /^[A-Za-z0-9_]{1,64}$/;
const BACKEND_NAME = /^[a-z][a-z0-9]{0,31}$/;

function rootOf(config: Record<string, unknown>, backend: string): string {
  const raw = config[ROOT_FIELD];
  if (raw !== undefined && raw !== null && typeof raw !== 'string')
    throw new ProviderError('permanent', `rclone: "${ROOT_FIELD}" must be a string`);
  const root = typeof raw === 'string' ? raw.trim() : '';
  if (/[\u0000-\u001f\u007f]/.test(root))
    throw new ProviderError('permanent', `rclone: "${ROOT_FIELD}" contains control characters`);
  if (backend === 'local' && !root.startsWith('/')) {
    throw new ProviderError(
      'permanent',
      `rclone local: "${ROOT_FIELD}" must be an absolute folder path (got ${JSON.stringify(root)})`,
    );
  }
  return normaliseRoot(root);
}

function addOption(def: RemoteDefinition, name: string, value: unknown, password: boolean, secret: boolean): void {
  if (!OPTION_NAME.test(name))
    throw new ProviderError('permanent', `rclone: invalid option name ${JSON.stringify(name)}`);
  if (name.toLowerCase() === 'type')
    throw new ProviderError('permanent', 'rclone: the backend is chosen by the target type, not by a "type" option');
  if (value !== undefined && value !== null && typeof value === 'object')
    throw new ProviderError('permanent', `rclone: option "${name}" must be a string, number or boolean`);
  const text = envValue(value);
  if (text === undefined) return;
  if (text.includes('\0')) throw new ProviderError('permanent', `rclone: option "${name}" contains a NUL character`);
  if (secret) def.secretValues.push(text);
  if (password) def.passwords[name] = text;
  else def.plain[name] = text;
}

/** A typed target (`webdav`, `sftp`...): every config field but `path` is an option of that backend. */
export function typedDefinition(backend: RcloneBackend, config: Record<string, unknown>): RemoteDefinition {
  const def: RemoteDefinition = {
    backend: backend.Prefix,
    root: rootOf(config, backend.Prefix),
    plain: {},
    passwords: {},
    secretValues: [],
  };
  const passwords = passwordOptions(backend);
  const known = new Map(backend.Options.map((o) => [o.Name, o]));
  for (const [name, value] of Object.entries(config)) {
    if (name === ROOT_FIELD) continue;
    addOption(def, name, value, passwords.has(name), isSecretOption(name, known.get(name)));
  }
  return def;
}

/** The generic `rclone` target: `{ backend, options, path }`. Options the catalogue flags as passwords are obscured. */
export function genericDefinition(
  config: Record<string, unknown>,
  catalogue: RcloneBackend[] | undefined,
): RemoteDefinition {
  const backend = config.backend;
  if (typeof backend !== 'string' || !BACKEND_NAME.test(backend)) {
    throw new ProviderError(
      'permanent',
      `rclone: "backend" must be an rclone backend name such as "s3" or "webdav" (got ${JSON.stringify(backend)})`,
    );
  }
  const info = catalogue?.find((b) => b.Prefix === backend);
  const def: RemoteDefinition = { backend, root: rootOf(config, backend), plain: {}, passwords: {}, secretValues: [] };
  const options = config.options ?? {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new ProviderError('permanent', 'rclone: "options" must be an object of option name -> value');
  const passwords = passwordOptions(info);
  const known = new Map((info?.Options ?? []).map((o) => [o.Name, o]));
  for (const [name, value] of Object.entries(options as Record<string, unknown>)) {
    addOption(def, name, value, passwords.has(name), isSecretOption(name, known.get(name)));
  }
  return def;
}

const OBSCURE_DEADLINE_MS = 30_000;

/** rclone's obscured form of a password, computed by `rclone obscure -` with the secret on stdin. */
export async function obscure(
  binary: string,
  baseEnv: Record<string, string | undefined>,
  value: string,
  secrets: string[],
  signal?: AbortSignal,
): Promise<string> {
  // `obscure -` takes the first line of stdin: a line break inside the value would cut it.
  if (/[\r\n]/.test(value))
    throw new ProviderError('permanent', 'rclone: a password option contains a line break, which rclone cannot take');
  const result = await runRclone(
    { binary, argv: buildArgv({ op: 'obscure' }, ''), env: buildEnv(baseEnv) },
    { input: `${value}\n`, deadlineMs: OBSCURE_DEADLINE_MS, signal, maxStdout: 64 * 1024 },
  );
  if (result.spawnError)
    throw notInstalled(binary, result.spawnError.code === 'ENOENT' ? 'not found' : result.spawnError.message);
  const out = result.stdout.toString('utf8').trim();
  if (result.code !== 0 || out === '') {
    throw new ProviderError(
      'permanent',
      `rclone obscure: ${trimReason(redact(reasonFromStderr(result.stderr), secrets)) || `exited with code ${String(result.code)}`}`,
    );
  }
  return out;
}

/** The RemoteSpec (password options obscured) and the values to redact (clear and obscured). */
export async function resolveRemote(
  def: RemoteDefinition,
  binary: string,
  baseEnv: Record<string, string | undefined>,
): Promise<{ spec: RemoteSpec; secrets: string[] }> {
  const options: Record<string, string> = { ...def.plain };
  const secrets = [...def.secretValues];
  for (const [name, value] of Object.entries(def.passwords)) {
    const obscured = await obscure(binary, baseEnv, value, secrets);
    options[name] = obscured;
    secrets.push(obscured);
  }
  return { spec: { backend: def.backend, options, root: def.root }, secrets };
}
