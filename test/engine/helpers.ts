import { execFile } from 'node:child_process';
import { lstat, mkdtemp, readdir, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ProviderDeps, StorageInstance } from '@backplane/plugin-api';
import { localDiskType } from '../../plugins/storage-local/local-disk.ts';

export const run = promisify(execFile);

export const deps: ProviderDeps = {
  tempDir: tmpdir(),
  log: { info: () => undefined, warn: () => undefined, error: () => undefined },
};

export async function localDisk(basePath: string): Promise<StorageInstance> {
  return localDiskType.create({ basePath }, deps);
}

/** A temp dir removed by the returned cleanup. */
export async function tempDir(prefix = 'bp-engine-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs a shell pipeline with pipefail; rejects on any stage failing. */
export async function sh(script: string): Promise<string> {
  const { stdout } = await run('bash', ['-c', `set -euo pipefail; ${script}`], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export function q(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Every file below `dir`, relative, folders excluded. */
export async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

/** Type, mode, content and link target of every entry below `dir`, keyed by relative path. */
export async function describeTree(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    const abs = join(e.parentPath, e.name);
    const rel = abs.slice(dir.length + 1);
    const st = await lstat(abs);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out.set(rel, `link ${await readlink(abs)}`);
    else if (st.isDirectory()) out.set(rel, `dir ${mode}`);
    else if (st.isFile()) out.set(rel, `file ${mode} ${(await readFile(abs)).toString('base64')}`);
    else out.set(rel, 'other');
  }
  return out;
}
