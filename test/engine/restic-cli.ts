import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The real restic (Debian's 0.14 at /usr/bin/restic, or BACKPLANE_TEST_RESTIC) for the bridge's
 * tests. The password never appears in argv or the environment: it goes into a 0600 file in a
 * 0700 folder, which is opened and unlinked at once, and restic reads it as /dev/fd/3 (a pipe
 * would not do: node's stdio pipes are sockets, which /dev/fd cannot reopen).
 */

export const RESTIC = process.env.BACKPLANE_TEST_RESTIC ?? 'restic';

export interface ResticResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ResticRun {
  cwd?: string;
  /** The run is killed after this long; default 120 s. */
  timeoutMs?: number;
  /**
   * Called with all of stderr so far whenever more arrives; once it returns true restic gets
   * SIGINT (it removes its lock and exits 130), so a test need not sit through restic 0.14's ten
   * retries of a refused request (about 45 s) to see the refusal.
   */
  interruptWhen?: (stderr: string) => boolean;
}

export async function restic(
  repository: string,
  password: string,
  args: string[],
  run: ResticRun = {},
): Promise<ResticResult> {
  const dir = await mkdtemp(join(tmpdir(), 'bp-restic-pw-'));
  const file = join(dir, 'password');
  await writeFile(file, password, { mode: 0o600 });
  const handle = await open(file, 'r');
  await rm(dir, { recursive: true, force: true });
  try {
    // A clean environment: no RESTIC_* of the machine's, no cache shared between tests, and no
    // rclone configuration for restic's rclone backend (it is only given local paths).
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: tmpdir(),
      TMPDIR: tmpdir(),
      LANG: 'C',
      RCLONE_CONFIG: '/dev/null',
    };
    const child = spawn(RESTIC, ['-r', repository, '--password-file', '/dev/fd/3', '--no-cache', ...args], {
      cwd: run.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe', handle.fd],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    let interrupted = false;
    child.stderr!.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
      if (!interrupted && run.interruptWhen?.(stderr)) interrupted = child.kill('SIGINT');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), run.timeoutMs ?? 120_000);
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (exit) => resolve(exit));
    });
    clearTimeout(timer);
    return { code, stdout, stderr };
  } finally {
    await handle.close();
  }
}

/** restic that must succeed: rejects with its output otherwise. */
export async function resticOk(repository: string, password: string, args: string[], run?: ResticRun): Promise<string> {
  const result = await restic(repository, password, args, run);
  if (result.code !== 0)
    throw new Error(`restic ${args.join(' ')} exited with ${result.code}:\n${result.stderr}\n${result.stdout}`);
  return result.stdout;
}

/** The ids of the repository's snapshots, oldest first. */
export async function snapshotIds(repository: string, password: string): Promise<string[]> {
  const list = JSON.parse(await resticOk(repository, password, ['snapshots', '--json'])) as {
    id: string;
    time: string;
  }[];
  return list.sort((a, b) => a.time.localeCompare(b.time)).map((s) => s.id);
}
