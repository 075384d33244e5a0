import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Duplex, Readable } from 'node:stream';
import { ResticError, ResticErrorKinds, STDERR_TAIL, type ResticErrorKind } from './restic-error.ts';

/**
 * One restic process: its environment, the repository and password handed over without argv,
 * its stderr read line by line, and its end on abort.
 *
 * The password goes through a socket on fd 3 (the from-repository's on fd 4) that this side
 * writes and closes at once. restic cannot open /dev/fd/3 itself: Node's stdio pipes are
 * socket pairs, and open(2) of a socket's /proc/self/fd link fails with ENXIO (measured:
 * "Readfile: open /dev/fd/3: no such device or address"). So restic's `--password-command` runs
 * `sh -c 'exec cat <&3'`: the shell duplicates the inherited descriptor (no open) and cat prints
 * what came through it. The password is in no argv, no environment and no file on disk; the
 * command line restic shows in `ps` names only the descriptor.
 *
 * The repository is given in RESTIC_REPOSITORY (RESTIC_FROM_REPOSITORY for copy's source):
 * argv is readable by every user (`ps`), /proc/PID/environ only by the same user and root, the
 * same protection a 0600 file would give, with nothing to remove afterwards. A loopback URL with
 * a per-run token stays out of `ps`.
 *
 * The environment is built from nothing: PATH, HOME and TMPDIR of this process, LC_ALL=C (the
 * texts matched in restic-error.ts are English), the repository, and what the caller adds
 * (a backend's credentials). Nothing else this process holds reaches restic.
 *
 * Abort: SIGINT, then SIGKILL after a grace. restic 0.14 removes its lock on SIGINT ("signal
 * interrupt received, cleaning up"); on SIGTERM or SIGKILL it dies at once and its lock stays
 * (measured), until `unlock` removes it as stale.
 */

/** How long restic may clean up after SIGINT before it is killed. */
export const RESTIC_KILL_GRACE_MS = 5000;

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const PASSWORD_FD = 3;
const FROM_PASSWORD_FD = 4;

/** Restic options that read a password from an inherited descriptor (see above). */
function passwordCommand(fd: number): string {
  return `sh -c 'exec cat <&${fd}'`;
}

/** A repository and its password, as `copy` and `init --copy-chunker-params` read a second one. */
export interface ResticSecondary {
  repository: string;
  password: string;
}

/** Where and how restic runs: the repository, the binary and the options every call shares. */
export interface ResticConnection extends ResticSecondary {
  command: string;
  /** Added to restic's environment (a backend's credentials); cannot name the repository or a password. */
  env?: Readonly<Record<string, string>> | undefined;
  /** restic's cache of this repository's metadata; without it, `--no-cache`. */
  cacheDir?: string | undefined;
  /** A CA certificate file to trust for an https repository (`--cacert`). */
  cacert?: string | undefined;
  signal?: AbortSignal | undefined;
  /** SIGINT to SIGKILL, in milliseconds (RESTIC_KILL_GRACE_MS). */
  killGraceMs?: number | undefined;
}

export interface ResticCall {
  /** The subcommand, then its options and operands. */
  args: readonly string[];
  /** A second repository the subcommand reads (`--from-repo`). */
  from?: ResticSecondary | undefined;
  /** Each stdout line; without it the caller reads `stdout` itself. */
  onStdoutLine?: ((line: string) => void) | undefined;
  /** Each stderr line (they are also kept, the last STDERR_TAIL characters, and classified). */
  onStderrLine?: ((line: string) => void) | undefined;
}

export interface ResticExit {
  /** The subcommand, for messages. */
  command: string;
  /** The exit status, or null when a signal ended restic. */
  code: number | null;
  /** The last STDERR_TAIL characters of stderr. */
  stderr: string;
  /** What the stderr texts say went wrong. */
  kind: ResticErrorKind;
}

export interface ResticChild {
  pid: number | undefined;
  /** restic's stdout (already consumed when the call had onStdoutLine). */
  stdout: Readable;
  /**
   * Settles once restic has exited and its output is read: the exit, or a rejection with the
   * abort reason when the signal stopped it, or with what a line callback threw.
   */
  exited: Promise<ResticExit>;
  /** Ends restic: SIGINT, SIGKILL after the grace; nothing once it has exited. */
  stop(): void;
}

/** A failed exit as the error to throw. */
export function resticFailure(exit: ResticExit): ResticError {
  return new ResticError(exit.command, exit.kind, exit.code, exit.stderr);
}

/** The environment restic runs in (see the header: built from nothing). */
export function resticEnv(conn: ResticConnection, from?: ResticSecondary): Record<string, string> {
  for (const key of Object.keys(conn.env ?? {})) {
    if (/^RESTIC_(FROM_)?(PASSWORD|REPOSITORY)/.test(key)) {
      throw new TypeError(`restic's ${key} is set by the driver, not through env`);
    }
  }
  const env: Record<string, string> = { PATH: process.env.PATH || DEFAULT_PATH };
  if (process.env.HOME) env.HOME = process.env.HOME;
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  Object.assign(env, conn.env);
  env.LC_ALL = 'C';
  env.RESTIC_REPOSITORY = conn.repository;
  if (from) env.RESTIC_FROM_REPOSITORY = from.repository;
  return env;
}

/** The options every call starts with, then the subcommand with the source's password option. */
export function resticArgs(conn: ResticConnection, call: ResticCall): string[] {
  const global = [
    `--password-command=${passwordCommand(PASSWORD_FD)}`,
    conn.cacheDir ? `--cache-dir=${conn.cacheDir}` : '--no-cache',
    ...(conn.cacert ? [`--cacert=${conn.cacert}`] : []),
  ];
  const [subcommand, ...rest] = call.args;
  if (!subcommand) throw new TypeError('restic: no subcommand');
  // copy's and init's source options belong to the subcommand, so they follow it
  const from = call.from ? [`--from-password-command=${passwordCommand(FROM_PASSWORD_FD)}`] : [];
  return [...global, subcommand, ...from, ...rest];
}

/** Starts restic; throws the abort reason when the signal has fired already. */
export function startRestic(conn: ResticConnection, call: ResticCall): ResticChild {
  const signal = conn.signal;
  if (signal?.aborted) throw abortReason(signal);
  const command = call.args[0] ?? '';
  const child = spawn(conn.command, resticArgs(conn, call), {
    env: resticEnv(conn, call.from),
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', ...(call.from ? (['pipe'] as const) : [])],
  });
  handOver(child.stdio[PASSWORD_FD] as Duplex | null, conn.password);
  if (call.from) handOver(child.stdio[FROM_PASSWORD_FD] as Duplex | null, call.from.password);

  let ended = false;
  let killTimer: NodeJS.Timeout | undefined;
  let callbackError: unknown;
  const stop = (): void => {
    if (ended || killTimer) return;
    child.kill('SIGINT');
    killTimer = setTimeout(() => {
      if (!ended) child.kill('SIGKILL');
    }, conn.killGraceMs ?? RESTIC_KILL_GRACE_MS);
  };
  const guarded = (callback: ((line: string) => void) | undefined) => (line: string) => {
    try {
      callback?.(line);
    } catch (err) {
      callbackError ??= err;
      stop();
    }
  };
  signal?.addEventListener('abort', stop, { once: true });

  const kinds = new ResticErrorKinds();
  let stderr = '';
  const onStderr = guarded(call.onStderrLine);
  const stderrDone = eachLine(child.stderr!, (line) => {
    kinds.add(line);
    stderr = (stderr + line + '\n').slice(-STDERR_TAIL);
    onStderr(line);
  });
  const onStdout = call.onStdoutLine && guarded(call.onStdoutLine);
  const stdoutDone = onStdout ? eachLine(child.stdout!, onStdout) : Promise.resolve();
  // awaited below once restic has closed; a process that never started must not leave them unhandled
  stderrDone.catch(() => undefined);
  stdoutDone.catch(() => undefined);

  const closed = new Promise<number | null>((res, rej) => {
    child.once('error', (err) => rej(new Error(`${conn.command}: ${err.message}`)));
    child.once('close', (code) => {
      ended = true;
      clearTimeout(killTimer);
      res(code);
    });
  });
  const exited = (async (): Promise<ResticExit> => {
    try {
      const code = await closed;
      await Promise.all([stderrDone, stdoutDone]);
      if (signal?.aborted) throw abortReason(signal);
      if (callbackError !== undefined) throw callbackError;
      return { command, code, stderr, kind: kinds.kind };
    } finally {
      ended = true;
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', stop);
    }
  })();
  // callers await `exited`; until they do, a rejection must not count as unhandled
  exited.catch(() => undefined);
  return { pid: child.pid, stdout: child.stdout!, exited, stop };
}

/**
 * Runs restic to its end with its stdout collected (or given line by line to onStdoutLine).
 * Throws a ResticError unless it exited with one of `okCodes`.
 */
export async function runRestic(
  conn: ResticConnection,
  call: ResticCall,
  okCodes: readonly number[] = [0],
): Promise<{ stdout: string; exit: ResticExit }> {
  const child = startRestic(conn, call);
  const chunks: Buffer[] = [];
  if (!call.onStdoutLine) child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const exit = await child.exited;
  if (exit.code === null || !okCodes.includes(exit.code)) throw resticFailure(exit);
  return { stdout: Buffer.concat(chunks).toString('utf8'), exit };
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** Writes a password into a descriptor and closes our side of it; restic reads it at start. */
function handOver(socket: Duplex | null, password: string): void {
  if (!socket) return; // no process was started: its 'error' says why
  // a restic that exits before reading (bad arguments) resets the socket: its exit tells why
  socket.on('error', () => undefined);
  // read (nothing comes) so the socket sees restic's end and closes, which the child's 'close' waits for
  socket.resume();
  socket.end(password);
}

async function eachLine(input: Readable, onLine: (line: string) => void): Promise<void> {
  for await (const line of createInterface({ input, crlfDelay: Infinity })) onLine(line);
}
