import { stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { buildArgv, buildEnv } from './invocation.ts';
import { runRclone } from './rclone-process.ts';
import { reasonFromStderr, redact, trimReason } from './errors.ts';

/**
 * The backend catalogue of the installed rclone, as `rclone config providers` prints it. Read
 * once per binary: the cache key is the binary's resolved path, size and modification time, so
 * another binary (or a replaced one) is read afresh, and a failure is never cached.
 */

export interface RcloneOptionExample {
  Value: string;
  Help?: string;
  Provider?: string;
}

/** One option of a backend, as rclone describes it (fields we use). */
export interface RcloneOption {
  Name: string;
  Help: string;
  Provider?: string;
  DefaultStr?: string;
  Hide?: number;
  Required?: boolean;
  IsPassword?: boolean;
  Advanced?: boolean;
  Exclusive?: boolean;
  Type?: string;
  Examples?: RcloneOptionExample[] | null;
}

export interface RcloneBackend {
  Name: string;
  Description: string;
  Prefix: string;
  Options: RcloneOption[];
  Hide?: boolean;
}

export type Catalogue = RcloneBackend[];

export type CatalogueResult =
  | { ok: true; binary: string; catalogue: Catalogue }
  | { ok: false; binary: string; reason: string };

const READ_DEADLINE_MS = 20_000;
const MAX_OUTPUT = 32 * 1024 * 1024;

const cache = new Map<string, Promise<Catalogue>>();

/** Where a bare command name resolves on PATH, like the shell would; undefined when it does not. */
async function resolveBinary(binary: string, env: Record<string, string | undefined>): Promise<string | undefined> {
  const candidates =
    isAbsolute(binary) || binary.includes('/')
      ? [binary]
      : (env.PATH ?? '')
          .split(delimiter)
          .filter((d) => d !== '')
          .map((d) => join(d, binary));
  for (const candidate of candidates) {
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile()) return candidate;
  }
  return undefined;
}

function parseCatalogue(text: string): Catalogue {
  const data: unknown = JSON.parse(text);
  if (!Array.isArray(data)) throw new Error('rclone config providers did not print a JSON array');
  return data
    .filter(
      (b): b is RcloneBackend =>
        typeof b === 'object' &&
        b !== null &&
        typeof (b as RcloneBackend).Prefix === 'string' &&
        Array.isArray((b as RcloneBackend).Options),
    )
    .map((b) => ({ ...b, Options: b.Options.filter((o) => typeof o?.Name === 'string') }));
}

async function readCatalogue(binary: string, env: Record<string, string | undefined>): Promise<Catalogue> {
  const result = await runRclone(
    { binary, argv: buildArgv({ op: 'providers' }, ''), env: buildEnv(env) },
    { deadlineMs: READ_DEADLINE_MS, maxStdout: MAX_OUTPUT },
  );
  if (result.spawnError) throw new Error(result.spawnError.code === 'ENOENT' ? 'not found' : result.spawnError.message);
  if (result.killedBy === 'deadline')
    throw new Error(`"rclone config providers" did not answer within ${READ_DEADLINE_MS / 1000} s`);
  if (result.code !== 0)
    throw new Error(
      trimReason(
        redact(reasonFromStderr(result.stderr)) || `"rclone config providers" exited with code ${String(result.code)}`,
        300,
      ),
    );
  return parseCatalogue(result.stdout.toString('utf8'));
}

/** Reads the catalogue of `binary`; never throws (a missing or broken rclone is a result). */
export async function loadCatalogue(
  binary: string,
  env: Record<string, string | undefined> = process.env,
): Promise<CatalogueResult> {
  const resolved = await resolveBinary(binary, env);
  if (!resolved) return { ok: false, binary, reason: 'not found' };
  const info = await stat(resolved).catch(() => undefined);
  const key = `${resolved}\0${info?.size ?? ''}\0${info?.mtimeMs ?? ''}\0${info?.ino ?? ''}`;
  let pending = cache.get(key);
  if (!pending) {
    pending = readCatalogue(resolved, env);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  try {
    return { ok: true, binary, catalogue: await pending };
  } catch (err) {
    return { ok: false, binary, reason: (err as Error).message };
  }
}
