import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { lstat, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough, type Readable } from 'node:stream';
import { toolEnv } from '@backplane/plugin-api';
import type { CompressorProgram } from '../stream/compression.ts';
import type { ManifestEntry } from './manifest-entry.ts';
import { describe, entryName } from './tar-entries.ts';
import { parseIndexLine, unquoteC } from './tar-index.ts';
import { walkNames, type NameSink } from './tar-name-walk.ts';
import { drained } from './tar-entry-flow.ts';
import type { TarSourceOptions } from './tar-source.ts';
import { carriedEntries, type CarriedEntry } from './tar-snapshot.ts';

/**
 * A file task's tar made by GNU tar in its own process, and compressed by the compressor program
 * that tar starts itself (`--use-compress-program`): the two are joined by a real pipe and the
 * uncompressed bytes never enter Node. (Joining two children of Node costs a tenth more wall
 * time, measured: Node's stdio pipes are socket pairs.) Node walks
 * the tree (names only, see tar-name-walk.ts) and writes the member list to tar's stdin; tar's
 * verbose listing comes back on stderr and becomes the manifest (tar-index.ts), its warnings
 * among it, each starting with `tar: `. Measured on the benchmark tree this is what brings a file backup to
 * the speed of `tar | zstd | age` (docs/benchmarks.md): the in-process producer (tar-source.ts)
 * spent most of its time in per-file round trips through the thread pool on the main thread.
 *
 * The archive is GNU tar's own format (`--format=gnu`, what `tar -c` writes by default): entry
 * names are the absolute paths without their leading `/`, links are stored as links, hard links
 * as independent copies, sockets/FIFOs/devices are skipped with a warning (by the walk).
 *
 * A differential backup (`incremental`) is different in one way: tar walks the tree itself, as
 * `--listed-incremental` needs (a member named in the list is always archived whole), so the
 * walk runs first and only to find what the excludes and the special files leave out, which tar
 * is told literally (`--exclude-from`, anchored, no wildcards): the same tree either way. The
 * tar-snapshot.ts file it updates then lists the files the full already holds (`onCarried`).
 *
 * The output ends only once tar and the compressor both exited well (tar's 1, "a file changed
 * as it was read", is a warning); otherwise it is destroyed with the reason, so a failed tar
 * never looks like a short, clean archive. Destroying the output or aborting kills both.
 */

export interface GnuTarSource {
  /** The archive bytes, compressed by `compressor` when one was given. */
  stream: Readable;
  manifest: ManifestEntry[];
  done: Promise<ManifestEntry[]>;
  /** Bytes read from source files so far; once `done`, the exact length of the uncompressed tar. */
  rawBytes: () => number;
  /** Whether `stream` is compressed already. */
  compressed: boolean;
}

const NAME_BATCH = 16 * 1024;

let gnuTarChecked: string | undefined | null = null;

/**
 * The GNU tar to run, or undefined to build the tar in-process (tar-source.ts):
 * `BACKPLANE_TAR_BINARY` (`none` turns the program off), else `tar` when it is GNU tar (other
 * tars lack the options used here).
 */
export function gnuTarProgram(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.BACKPLANE_TAR_BINARY;
  if (configured === 'none') return undefined;
  const command = configured || 'tar';
  if (command === 'tar' && gnuTarChecked !== null) return gnuTarChecked;
  const probe = spawnSync(command, ['--version'], {
    encoding: 'utf8',
    timeout: 5000,
    env: toolEnv(process.env, { LC_ALL: 'C' }),
  });
  const found = probe.status === 0 && /GNU tar/.test(probe.stdout) ? command : undefined;
  if (command === 'tar') gnuTarChecked = found;
  return found;
}

/**
 * tar's arguments; `members` says how it reads its member list from stdin (a list not descended
 * into, or the roots of a `--listed-incremental` walk).
 */
function tarArgs(members: string[] = ['--no-recursion']): string[] {
  return [
    '--create',
    '--file=-',
    '--directory=/',
    '--format=gnu',
    ...members,
    // the member list: NUL-separated, taken literally (a name may start with '-'); these options
    // are positional and must come before --files-from
    '--null',
    '--verbatim-files-from',
    '--files-from=-',
    '--hard-dereference',
    // a file that vanished or cannot be read is a warning, as in the in-process tar
    '--ignore-failed-read',
    // the listing that becomes the manifest, and the tar's length at the end, both on stderr
    // (the archive is on stdout) among the warnings, which start with "tar: "
    '-vv',
    '--full-time',
    '--quoting-style=c',
    '--totals',
  ];
}

/** A tar warning line as the run log shows it: the quoted relative name back to an absolute path. */
function warningOf(line: string): { message: string; path: string } {
  const text = line.replace(/^tar: /, '');
  const m = /^"((?:[^"\\]|\\.)*)": (.*)$/.exec(text);
  if (!m) return { message: text, path: '' };
  const path = `/${unquoteC(m[1]!)}`;
  return { message: `${path}: ${m[2]!}`, path };
}

/**
 * A tar process, started with the locale and zone its listing is parsed in; stdin a new pipe or
 * the given stream. Its environment is a tool's (no TAR_OPTIONS, nothing of Backplane's own),
 * which the compressor it starts inherits.
 */
export function spawnTar(program: string, args: string[], stdin: 'pipe' | Readable = 'pipe'): ChildProcess {
  return spawn(program, args, {
    env: toolEnv(process.env, { LC_ALL: 'C', TZ: 'UTC' }),
    stdio: [stdin, 'pipe', 'pipe'],
  });
}

/**
 * Waits for tar (or the program named `label`) to end; rejects unless it exited with at most
 * `worstOk` (creating: 1, "a file changed as it was read", is a warning; extracting: 0 only),
 * with its stderr in the message.
 */
export function tarExited(
  tar: ChildProcess,
  program: string,
  worstOk: number,
  stderr: () => string,
  label = 'tar',
): Promise<void> {
  return new Promise((res, rej) => {
    tar.once('error', (error) => rej(new Error(`${program}: ${error.message}`)));
    tar.once('close', (code, signal) => {
      if (!signal && code !== null && code <= worstOk) return res();
      const status = signal ? `was killed by ${signal}` : `exited with ${String(code)}`;
      const text = stderr().trim();
      rej(new Error(`${label} ${status}${text ? `: ${text.slice(0, 500)}` : ''}`));
    });
  });
}

/** Kills a child that has not exited yet. */
export function killChild(child: ChildProcess | undefined): void {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/**
 * A compressor tar can start itself (`--use-compress-program`, which tar splits on blanks): one
 * whose program path and arguments hold no whitespace.
 */
export function tarCompressor(program: CompressorProgram | undefined): CompressorProgram | undefined {
  return program && [program.command, ...program.args].every((part) => part !== '' && !/\s/.test(part))
    ? program
    : undefined;
}

/** A `--listed-incremental` run: a full (no `base`) or a differential against the full whose snapshot `base` is. */
export interface TarIncremental {
  /** The snapshot file tar creates (a full) or updates (a differential: a copy of the full's, made by the caller). */
  snapshot: string;
  /** The full's own snapshot file, unchanged: where a renamed folder's files were. */
  base?: string;
  /** After tar ended, in batches: each file the differential did not archive because the full holds it. */
  onCarried?: (entries: CarriedEntry[]) => void | Promise<void>;
}

/** tar's notes on a `--listed-incremental` walk: information, not warnings. */
const INCREMENTAL_NOTE = /: Directory (is new|has been renamed)/;

export function createGnuTarSource(
  program: string,
  options: TarSourceOptions & { compressor?: CompressorProgram | undefined; incremental?: TarIncremental | undefined },
): GnuTarSource {
  const manifest: ManifestEntry[] = [];
  const record = options.onEntry ?? ((entry: ManifestEntry): void => void manifest.push(entry));
  const warn = (message: string, path: string): void => options.onWarning?.(message, path);
  const excludes = options.excludes ?? [];
  const signal = options.signal;
  const out = new PassThrough({ highWaterMark: 1024 * 1024 });
  let tar: ChildProcess | undefined;
  let finished = false;
  let contentBytes = 0;
  let totalBytes: number | undefined;
  const kill = (): void => killChild(tar);
  out.once('close', () => {
    if (!finished) kill();
  });
  const onAbort = (): void => {
    kill();
    out.destroy(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
  };

  let cleanup: (() => Promise<void>) | undefined;
  const done = (async (): Promise<ManifestEntry[]> => {
    try {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      // The source paths first: an archive of nothing is no backup, and fails before tar starts.
      const roots: Array<{ abs: string; st: import('node:fs').Stats }> = [];
      const unreadable: string[] = [];
      for (const p of options.paths) {
        const abs = resolve(p);
        try {
          roots.push({ abs, st: await lstat(abs) });
        } catch (err) {
          unreadable.push(`${abs} (${describe(err)})`);
          warn(`skipped ${abs}: ${describe(err)}`, abs);
        }
      }
      if (options.paths.length > 0 && roots.length === 0) {
        throw new Error(`nothing to back up: no source path could be read: ${unreadable.join(', ')}`.slice(0, 1500));
      }

      const compressor = options.compressor;
      const incremental = options.incremental;
      const prepared = incremental ? await incrementalArgs(incremental, roots, excludes, warn, signal, out) : undefined;
      cleanup = prepared?.cleanup;
      let args = prepared?.args ?? tarArgs();
      if (compressor) args = [...args, `--use-compress-program=${[compressor.command, ...compressor.args].join(' ')}`];
      let tarStderr = '';
      tar = spawnTar(program, args);
      const tarExit = tarExited(tar, program, 1, () => tarStderr);
      tarExit.catch(() => undefined); // awaited later; a tar that dies early must not be an unhandled rejection meanwhile
      tar.stdout!.pipe(out, { end: false });

      const stderrLines = createInterface({ input: tar.stderr!, crlfDelay: Infinity });
      const stderrDone = (async () => {
        for await (const line of stderrLines) {
          const entry = line.startsWith('tar: ') ? null : parseIndexLine(line);
          if (entry) {
            contentBytes += entry.size;
            record(entry);
            continue;
          }
          const total = /^Total bytes written: (\d+)/.exec(line);
          if (total) totalBytes = Number(total[1]);
          else if (incremental && INCREMENTAL_NOTE.test(line)) continue;
          else if (line.trim() !== '') {
            if (tarStderr.length < 4096) tarStderr += `${line}\n`;
            const w = warningOf(line);
            warn(w.message, w.path);
          }
        }
      })();

      const stdin = tar.stdin!;
      stdin.on('error', () => undefined); // EPIPE when tar stops early: its exit status tells why
      let pending = '';
      const flush = async (): Promise<void> => {
        if (pending === '') return;
        const chunk = pending;
        pending = '';
        if (!stdin.write(chunk)) await drained(stdin, signal);
      };
      const sink: NameSink = {
        async name(entry) {
          pending += `${entry}\0`;
          if (pending.length >= NAME_BATCH) await flush();
        },
        warn,
        checkAborted() {
          if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
          if (out.destroyed) throw new Error('tar stream was destroyed');
        },
      };
      try {
        if (incremental) for (const { abs } of roots) await sink.name(entryName(abs));
        else for (const { abs, st } of roots) await walkNames(sink, abs, st, excludes);
        await flush();
      } finally {
        stdin.end();
      }

      await Promise.all([tarExit, stderrDone]);
      if (incremental?.base && incremental.onCarried) {
        // tar lists an excluded name as present and not archived, like an unchanged file: not one.
        const excluded = prepared?.excluded ?? new Set<string>();
        for await (const batch of carriedEntries(incremental.snapshot, incremental.base))
          await incremental.onCarried(batch.filter((c) => !excluded.has(c.path)));
      }
      finished = true;
      out.end();
      return manifest;
    } catch (err) {
      kill();
      out.destroy(err as Error);
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      await cleanup?.();
    }
  })();
  done.catch(() => undefined);
  return {
    stream: out,
    manifest,
    done,
    rawBytes: () => totalBytes ?? contentBytes,
    compressed: options.compressor !== undefined,
  };
}

/**
 * tar's arguments for a `--listed-incremental` run, after a walk that only collects what the
 * excludes and the special files leave out: tar gets them as literal names in a file (read
 * before the archive starts, so removed at once). The roots come on stdin, tar recurses itself.
 */
async function incrementalArgs(
  incremental: TarIncremental,
  roots: Array<{ abs: string; st: import('node:fs').Stats }>,
  excludes: readonly string[],
  warn: (message: string, path: string) => void,
  signal: AbortSignal | undefined,
  out: PassThrough,
): Promise<{ args: string[]; excluded: Set<string>; cleanup: () => Promise<void> }> {
  const left: string[] = [];
  const sink: NameSink = {
    name: () => Promise.resolve(),
    warn,
    excluded(path) {
      // tar reads the list one name per line: a name with a line break cannot be told apart.
      if (path.includes('\n')) warn(`${path}: a name with a line break cannot be excluded from a differential`, path);
      else left.push(entryName(path));
    },
    checkAborted() {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
      if (out.destroyed) throw new Error('tar stream was destroyed');
    },
  };
  for (const { abs, st } of roots) await walkNames(sink, abs, st, excludes);
  const dir = await mkdtemp(join(tmpdir(), 'backplane-tar-'));
  const file = join(dir, 'exclude');
  await writeFile(file, left.map((name) => `${name}\n`).join(''), { mode: 0o600 });
  const args = tarArgs([
    `--listed-incremental=${incremental.snapshot}`,
    '--no-wildcards',
    '--anchored',
    `--exclude-from=${file}`,
  ]);
  return { args, excluded: new Set(left), cleanup: () => rm(dir, { recursive: true, force: true }) };
}
