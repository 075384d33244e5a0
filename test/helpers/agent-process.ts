import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../core/main.ts', import.meta.url));

export interface AgentProcess {
  child: ChildProcess;
  logs: string[];
  /** SIGTERM (a graceful stop); resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the agent vanishes mid-work. */
  kill(): Promise<void>;
}

/** Starts a real agent process (`backplane agent`) against `master`, with fast heartbeats and polls. */
export async function startAgent(options: {
  master: string;
  token?: string;
  tokenFile?: string;
  dir: string;
  env?: Record<string, string>;
  args?: string[];
}): Promise<AgentProcess> {
  const tokenFile = options.tokenFile ?? join(options.dir, 'agent.token');
  if (options.token !== undefined) await writeFile(tokenFile, `${options.token}\n`, { mode: 0o600 });
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'agent',
      '--master',
      options.master,
      '--token-file',
      tokenFile,
      '--temp-dir',
      join(options.dir, 'tmp'),
      '--heartbeat-seconds',
      '1',
      '--poll-seconds',
      '1',
      ...(options.args ?? []),
    ],
    {
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const logs: string[] = [];
  const collect = (chunk: Buffer): void => {
    logs.push(...chunk.toString().split('\n').filter(Boolean));
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = once(child, 'exit');
  return {
    child,
    logs,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      return code;
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Polls `check` every 100 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
