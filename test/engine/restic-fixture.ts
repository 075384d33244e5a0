import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Restic, type ResticOptions } from '../../core/engine/index.ts';
import { tempDir } from './helpers.ts';

/** What the tests' repositories are encrypted with. */
export const PASSWORD = 'correct horse battery staple 42';

let template: Promise<string> | undefined;

/**
 * One repository, initialised by the driver once per test file (an init calibrates restic's key
 * derivation: seconds of CPU) and removed when the file's process exits.
 */
function templateRepository(): Promise<string> {
  template ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bp-restic-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const repository = join(dir, 'repo');
    await new Restic({ repository, password: PASSWORD }).init();
    return repository;
  })();
  return template;
}

/**
 * A temp dir with an initialised local-folder repository in `<dir>/repo`, a test's own: a copy
 * of the file's template repository (restic.test.ts tests init itself). Copies share the
 * template's repository id, which nothing here tells apart: the driver runs without a cache.
 */
export async function repositoryFixture(
  options: Partial<ResticOptions> = {},
): Promise<{ dir: string; repoPath: string; restic: Restic; cleanup: () => Promise<void> }> {
  const { dir, cleanup } = await tempDir('bp-restic-');
  const repoPath = join(dir, 'repo');
  await cp(await templateRepository(), repoPath, { recursive: true });
  const restic = new Restic({ repository: repoPath, password: PASSWORD, ...options });
  return { dir, repoPath, restic, cleanup };
}

/** Writes files (relative path -> content) under `root`, folders made on the way. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** Ids of the running processes this test process started, by program name (/proc/PID/stat). */
export function childrenNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split at the last ')'
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if (comm === name && Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}
