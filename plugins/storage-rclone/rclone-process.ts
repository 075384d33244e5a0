import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ExitInfo } from './errors.ts';

/**
 * One rclone child process: spawned with an explicit environment and argv (never a shell),
 * stderr kept (bounded) for error messages, always reaped, killable on abort or deadline.
 */

/** How much of stderr is kept: its tail, which holds rclone's final "Failed to ..." line. */
const STDERR_KEEP = 32 * 1024;
/** How long a child gets to exit after SIGTERM before SIGKILL. */
const KILL_GRACE_MS = 3_000;

export interface RcloneCommand {
  binary: string;
  argv: string[];
  env: Record<string, string>;
}

export interface SpawnOptions {
  stdin?: 'pipe' | 'ignore';
  stdout?: 'pipe' | 'ignore';
  /** Kill the child after this long (the run then counts as timed out). */
  deadlineMs?: number;
  signal?: AbortSignal;
}

export interface ChildExit extends ExitInfo {
  /** spawn() itself failed (ENOENT: no such binary, EACCES...). */
  spawnError?: NodeJS.ErrnoException;
  /** We killed it: deadline, abort or terminate(). */
  killedBy?: 'deadline' | 'abort' | 'terminate';
}

export class RcloneChild {
  readonly #child: ChildProcess;
  #stderr = '';
  #killedBy: ChildExit['killedBy'];
  #exit: ChildExit | undefined;
  readonly exited: Promise<ChildExit>;
  #deadline: NodeJS.Timeout | undefined;
  #killTimer: NodeJS.Timeout | undefined;
  #onAbort: (() => void) | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor(command: RcloneCommand, options: SpawnOptions = {}) {
    this.#signal = options.signal;
    this.#child = spawn(command.binary, command.argv, {
      env: command.env,
      stdio: [options.stdin ?? 'ignore', options.stdout ?? 'pipe', 'pipe'],
      windowsHide: true,
    });
    this.#child.stderr?.setEncoding('utf8');
    this.#child.stderr?.on('data', (chunk: string) => {
      this.#stderr += chunk;
      if (this.#stderr.length > 2 * STDERR_KEEP) this.#stderr = this.#stderr.slice(-STDERR_KEEP);
    });
    // A child that exits while we still write to it: EPIPE arrives here, the exit code tells why.
    this.#child.stdin?.on('error', () => undefined);
    this.#child.stdout?.on('error', () => undefined);
    this.exited = new Promise<ChildExit>((resolve) => {
      let spawnError: NodeJS.ErrnoException | undefined;
      const finish = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#exit) return;
        this.#cleanup();
        // Nobody may write to a child that is gone; writers waiting for 'drain' see 'close' instead.
        this.#child.stdin?.destroy();
        this.#exit = { code, signal, stderr: this.#stderr, spawnError, killedBy: this.#killedBy };
        resolve(this.#exit);
      };
      this.#child.on('error', (err: NodeJS.ErrnoException) => {
        // 'error' is either a failed spawn or a signal that could not be delivered (then 'close' still follows).
        if (this.#child.pid === undefined) {
          spawnError = err;
          finish(null, null);
        }
      });
      this.#child.once('close', (code, signal) => finish(code, signal));
    });
    if (options.deadlineMs !== undefined) {
      this.#deadline = setTimeout(() => this.#kill('deadline'), options.deadlineMs);
    }
    if (options.signal) {
      this.#onAbort = () => this.#kill('abort');
      if (options.signal.aborted) this.#onAbort();
      else options.signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get stdin(): Writable {
    if (!this.#child.stdin) throw new Error('rclone child has no stdin pipe');
    return this.#child.stdin;
  }

  get stdout(): Readable {
    if (!this.#child.stdout) throw new Error('rclone child has no stdout pipe');
    return this.#child.stdout;
  }

  /** The exit, once the child has exited and its pipes closed; undefined while it runs. */
  get exit(): ChildExit | undefined {
    return this.#exit;
  }

  get killedBy(): ChildExit['killedBy'] {
    return this.#killedBy;
  }

  /** SIGTERM, then SIGKILL after a grace period; resolves once the child is gone. */
  async terminate(): Promise<ChildExit> {
    this.#kill('terminate');
    return this.exited;
  }

  #kill(reason: NonNullable<ChildExit['killedBy']>): void {
    if (this.#exit || this.#killedBy) return;
    this.#killedBy = reason;
    this.#child.kill('SIGTERM');
    this.#killTimer = setTimeout(() => {
      if (!this.#exit) this.#child.kill('SIGKILL');
    }, KILL_GRACE_MS);
  }

  #cleanup(): void {
    clearTimeout(this.#deadline);
    clearTimeout(this.#killTimer);
    if (this.#onAbort) this.#signal?.removeEventListener('abort', this.#onAbort);
  }
}

export interface RunResult extends ChildExit {
  stdout: Buffer;
}

/**
 * Runs rclone to completion with optional stdin input; stdout is collected up to `maxStdout`
 * bytes (beyond that the child is killed and the run fails), for small JSON answers only.
 */
export async function runRclone(
  command: RcloneCommand,
  options: { input?: string; deadlineMs?: number; signal?: AbortSignal; maxStdout?: number } = {},
): Promise<RunResult> {
  const child = new RcloneChild(command, {
    stdin: options.input === undefined ? 'ignore' : 'pipe',
    stdout: 'pipe',
    deadlineMs: options.deadlineMs,
    signal: options.signal,
  });
  const max = options.maxStdout ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  if (child.pid !== undefined) {
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        overflow = true;
        void child.terminate();
        return;
      }
      chunks.push(chunk);
    });
    if (options.input !== undefined) child.stdin.end(options.input);
  }
  const exit = await child.exited;
  if (overflow)
    return {
      ...exit,
      code: exit.code ?? 1,
      stderr: `${exit.stderr}\nFailed to read rclone output: more than ${max} bytes`,
      stdout: Buffer.alloc(0),
    };
  return { ...exit, stdout: Buffer.concat(chunks) };
}
