/**
 * External programs as streams whose end means success: database tools (pg_dump, psql,
 * mysqldump, mysql) for the database drivers, and filters (zstd) for core's artifact pipeline.
 * One wrapper, so a failed program never looks like a short, clean result anywhere.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Duplex, PassThrough, type Readable } from 'node:stream';
import { ProviderError, type DumpCompressor, type DumpStream, type ProviderErrorKind } from './contracts.ts';
import { toolEnv } from './tool-env.ts';

/** How much of a tool's stderr is kept for the error message. */
const STDERR_LIMIT = 16 * 1024;
const MESSAGE_LIMIT = 500;

export interface ToolRun {
  command: string;
  args: string[];
  env: Record<string, string | undefined>;
  /** Secrets to blank out of any message (the password). */
  secrets: string[];
  /** Maps the tool's stderr onto an error kind. */
  classify(stderr: string): ProviderErrorKind;
  /**
   * Called once, after the program (and a dump's compressor) exited, whatever the outcome
   * (success, failure, a program that did not start, a reader that stopped early): removes what
   * the program needed only while it ran, such as the file holding its password. It must not
   * reject (report its own failure, for instance in the provider's log).
   */
  release?(): Promise<void>;
}

/** Trims a message, removes every secret from it and caps its length. */
export function cleanMessage(text: string, secrets: string[]): string {
  let out = text.trim();
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  out = out.replace(/\s+\n/g, '\n');
  return out.length > MESSAGE_LIMIT ? `${out.slice(0, MESSAGE_LIMIT)}…` : out;
}

function failure(run: ToolRun, code: number | null, signal: NodeJS.Signals | null, stderr: string): ProviderError {
  const status = signal ? `was killed by ${signal}` : `exited with ${String(code)}`;
  const why = cleanMessage(stderr, run.secrets);
  return new ProviderError(run.classify(stderr), `${run.command} ${status}${why ? `: ${why}` : ''}`);
}

function spawnError(run: ToolRun, err: NodeJS.ErrnoException): ProviderError {
  if (err.code === 'ENOENT')
    return new ProviderError('unsupported', `${run.command} is not installed (not found on PATH)`, { cause: err });
  return new ProviderError('permanent', `${run.command}: ${cleanMessage(err.message, run.secrets)}`, { cause: err });
}

function collect(stream: Readable | null | undefined): () => string {
  let text = '';
  stream?.setEncoding('utf8');
  stream?.on('data', (chunk: string) => {
    if (text.length < STDERR_LIMIT) text += chunk;
  });
  return () => text;
}

/** Resolves when the program exited 0; rejects with its error otherwise (a spawn failure included). */
function successOf(child: ChildProcess, run: ToolRun, stderr: () => string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    child.once('error', (err) => reject(spawnError(run, err)));
    child.once('close', (code, signal) => (code === 0 ? resolve() : reject(failure(run, code, signal, stderr()))));
  });
}

/**
 * A program's output as a stream that ends only once `done` resolved; when `done` rejects, the
 * stream is destroyed with the same error. Destroying the stream before that calls `stop`.
 * `done` is returned with its rejection already handled: the stream carries the same error, and
 * a caller that only reads the stream must not crash the process.
 */
function outputUntil(
  stdout: Readable,
  done: Promise<void>,
  stop: () => void,
): { out: PassThrough; done: Promise<void> } {
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  let settled = false;
  stdout.pipe(out, { end: false });
  out.on('close', () => {
    if (!settled) stop();
  });
  const ended = done.then(
    () => {
      settled = true;
      out.end();
    },
    (err: unknown) => {
      settled = true;
      out.destroy(err as Error);
      throw err;
    },
  );
  ended.catch(() => undefined);
  return { out, done: ended };
}

/**
 * Starts the program with its stdout piped into a stream that ends only once the program
 * exited 0; any other exit (or a spawn failure) destroys the stream with the program's error,
 * and `done` rejects with the same error. Destroying the stream early kills the program.
 */
function startTool(
  run: ToolRun,
  stdin: 'ignore' | 'pipe',
  killSignal: NodeJS.Signals,
): { child: ChildProcess; out: PassThrough; done: Promise<void> } {
  const child = spawn(run.command, run.args, { env: run.env, stdio: [stdin, 'pipe', 'pipe'] });
  const { out, done } = outputUntil(child.stdout!, successOf(child, run, collect(child.stderr)), () =>
    child.kill(killSignal),
  );
  return { child, out, done };
}

/**
 * Runs a dump tool and exposes its stdout. The returned stream ends only when the tool exited
 * with 0; otherwise it is destroyed with the tool's error, and `done` rejects with the same
 * error. Destroying the stream early kills the tool.
 */
export function runDump(run: ToolRun, compressor?: DumpCompressor): DumpStream {
  let dump: DumpStream;
  try {
    if (compressor) dump = runCompressedDump(run, compressor);
    else {
      const { out, done } = startTool(run, 'ignore', 'SIGTERM');
      dump = { stream: out, done };
    }
  } catch (err) {
    // spawn() throws at once for arguments it refuses (a NUL byte): nothing runs, so release now.
    void run.release?.();
    throw err;
  }
  if (!run.release) return dump;
  const release = run.release.bind(run);
  // `done` settles once every program of the dump exited, so the release waits for that; the
  // returned `done` settles after the release, with the dump's outcome.
  const done = dump.done.then(release, async (err: unknown) => {
    await release();
    throw err;
  });
  done.catch(() => undefined); // as startTool's: a caller that only reads the stream must not crash the process
  return { ...dump, done };
}

/**
 * The dump tool's stdout handed to the compressor as its stdin: the two programs share a
 * socket pair this process never reads, so the uncompressed dump does not pass through Node
 * (measured in bench/backup-postgres.ts). The stream carries the compressor's output and ends
 * only when both programs exited 0; when either fails, the other is killed and the stream is
 * destroyed with the failure (a dump killed half-way leaves the compressor a clean end of
 * input, so the compressor's own success proves nothing).
 */
function runCompressedDump(run: ToolRun, compressor: DumpCompressor): DumpStream {
  // The compressor gets an environment of its own: what the dump tool was given for its
  // connection (a password file, the server's settings) is none of its business.
  const filterRun: ToolRun = {
    command: compressor.command,
    args: compressor.args,
    env: toolEnv(run.env),
    secrets: run.secrets,
    classify: () => 'permanent',
  };
  const filter = spawn(compressor.command, compressor.args, { env: filterRun.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const filterStderr = collect(filter.stderr);
  const filterDone = successOf(filter, filterRun, filterStderr);
  // A compressor that did not start has no descriptor to share; its error ends the run.
  const tool =
    filter.pid === undefined
      ? undefined
      : spawn(run.command, run.args, { env: run.env, stdio: ['ignore', filter.stdin!, 'pipe'] });
  // The tool holds the write end now; this process's copy would keep the compressor from ever seeing the end.
  filter.stdin!.destroy();
  const toolStderr = collect(tool?.stderr);
  const toolDone = tool ? successOf(tool, run, toolStderr) : filterDone;
  const killBoth = (): void => {
    tool?.kill('SIGTERM');
    filter.kill('SIGKILL');
  };
  let rawBytes: number | undefined;
  // Whichever fails first stops the other; the raw size is read once both ended well.
  const both = Promise.all(
    [toolDone, filterDone].map((p) =>
      p.catch((err: unknown) => {
        killBoth();
        throw err;
      }),
    ),
  ).then(() => {
    rawBytes = compressor.rawBytes?.(filterStderr());
  });
  const { out, done } = outputUntil(filter.stdout!, both, killBoth);
  return { stream: out, done, compressed: true, rawBytes: () => rawBytes };
}

/**
 * A filter program as a Duplex: bytes written go to its stdin, its stdout comes out. The
 * output ends only once the program exited 0; any other exit errors the stream instead.
 * Destroying the duplex kills the program. It runs in `env`, by default the few variables of
 * this process's environment that tools get (see tool-env.ts).
 */
export function toolStream(
  command: string,
  args: string[],
  env: Record<string, string | undefined> = toolEnv(process.env),
): Duplex {
  const { child, out } = startTool({ command, args, env, secrets: [], classify: () => 'permanent' }, 'pipe', 'SIGKILL');
  child.stdin!.on('error', () => undefined); // EPIPE when the program stops early: its exit status tells why
  const duplex = Duplex.from({ writable: child.stdin!, readable: out });
  out.once('error', (err) => {
    if (!duplex.destroyed) duplex.destroy(err);
  });
  duplex.once('close', () => {
    if (!out.destroyed) out.destroy();
  });
  return duplex;
}

const available = new Map<string, boolean>();

/** Whether `command --version` runs (checked once per command). */
export function toolAvailable(command: string): boolean {
  let ok = available.get(command);
  if (ok === undefined) {
    ok = spawnSync(command, ['--version'], { env: toolEnv(process.env), stdio: 'ignore', timeout: 5000 }).status === 0;
    available.set(command, ok);
  }
  return ok;
}

/**
 * Runs a restore tool with `input` on its stdin. Resolves when the tool exits with 0 after
 * reading everything; rejects with the tool's error (or the input's, if the input failed first).
 */
export async function runRestore(run: ToolRun, input: Readable): Promise<void> {
  try {
    await restoreWith(run, input);
  } finally {
    await run.release?.();
  }
}

async function restoreWith(run: ToolRun, input: Readable): Promise<void> {
  // An input that already failed or closed would never end: refuse it before the tool starts.
  if (input.errored) throw input.errored;
  if (input.destroyed) throw new Error('the input closed before the restore started');
  const child = spawn(run.command, run.args, { env: run.env, stdio: ['pipe', 'ignore', 'pipe'] });
  const stderr = collect(child.stderr);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', (err) => reject(spawnError(run, err)));
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  exit.catch(() => undefined);
  let inputError: unknown;
  await new Promise<void>((resolve) => {
    input.once('error', (err) => {
      // Kill before stdin closes: a tool that saw a clean EOF would commit a partial restore.
      inputError = err;
      child.kill('SIGKILL');
      resolve();
    });
    // Closed without an end (destroyed without an error): as bad as an error.
    input.once('close', () => {
      if (input.readableEnded) return;
      inputError ??= input.errored ?? new Error('the input closed before its end');
      child.kill('SIGKILL');
      resolve();
    });
    // EPIPE: the tool stopped reading because it failed; its exit status tells why.
    child.stdin.once('error', () => resolve());
    child.stdin.once('finish', () => resolve());
    child.once('close', () => resolve());
    input.pipe(child.stdin);
  });
  const { code, signal } = await exit;
  if (inputError !== undefined) throw inputError;
  if (code !== 0) throw failure(run, code, signal, stderr());
}

/** The parent's environment without variables of `prefix` (PG*, MYSQL_*), so only the config decides. */
export function cleanEnv(base: Record<string, string | undefined>, prefix: RegExp): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(base)) if (!prefix.test(key)) env[key] = value;
  return env;
}
