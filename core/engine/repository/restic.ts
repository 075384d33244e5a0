import { createInterface } from 'node:readline';
import { PassThrough, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  backupArgs,
  backupWarningOf,
  statusOf,
  summaryOf,
  type ResticBackupOptions,
  type ResticBackupSummary,
} from './restic-backup.ts';
import { CopyReport, type ResticCopied } from './restic-copy.ts';
import { ResticError } from './restic-error.ts';
import { findRestic, type ResticProgram } from './restic-program.ts';
import {
  abortReason,
  resticFailure,
  runRestic,
  startRestic,
  type ResticCall,
  type ResticConnection,
  type ResticExit,
  type ResticSecondary,
} from './restic-process.ts';
import {
  nodeOf,
  snapshotOf,
  statsOf,
  type ResticNode,
  type ResticSnapshot,
  type ResticStats,
} from './restic-records.ts';

/**
 * One restic repository, driven through the stock `restic` program (0.14 or newer): every
 * operation is one restic process (restic-process.ts: password on a descriptor, repository in the
 * environment, minimal environment, SIGINT then SIGKILL on abort), its JSON output parsed into
 * typed values where restic prints JSON. A failure is a ResticError with a `kind`; an abort
 * rejects with the signal's reason once restic has exited.
 */

export interface ResticOptions {
  /** A local path or a restic URL (`rest:http://127.0.0.1:PORT/TOKEN/`). */
  repository: string;
  password: string;
  /** Stops whatever runs: restic gets SIGINT (it removes its lock), then SIGKILL after `killGraceMs`. */
  signal?: AbortSignal;
  /** Added to restic's environment (a backend's credentials). */
  env?: Readonly<Record<string, string>>;
  /** Where restic caches this repository's metadata; without it every run reads it afresh (`--no-cache`). */
  cacheDir?: string;
  /** A CA certificate file to trust for an https repository. */
  cacert?: string;
  /** The binary to run; found and version-checked by findRestic() when not given. */
  program?: ResticProgram;
  killGraceMs?: number;
  /**
   * How long an operation that finds the repository locked by another restic (a prune, say) tries
   * again before it fails with kind 'locked': restic 0.14 has no `--retry-lock`. 0: no wait.
   */
  lockWaitMs?: number;
  /** Told each time an operation waits for a lock, with restic's error (it names the holder). */
  onLockWait?: (err: ResticError, waitMs: number) => void;
}

export interface ResticCheckOptions {
  /** Also read and verify this part of the packs: `10%`, `1/5`, `500M` (restic's `--read-data-subset`). */
  readDataSubset?: string;
}

/** What check printed (stdout and stderr, the last CHECK_OUTPUT characters) and its verdict. */
export type ResticCheckResult = { ok: true; output: string } | { ok: false; output: string; error: ResticError };

export type ResticStatsMode = 'raw-data' | 'restore-size';

const CHECK_OUTPUT = 64 * 1024;
/** The first pause before a locked operation tries again; it doubles up to LOCK_RETRY_MAX_MS. */
const LOCK_RETRY_MS = 1000;
const LOCK_RETRY_MAX_MS = 30_000;

type Json = Record<string, unknown>;

export class Restic {
  readonly #options: ResticOptions;
  #connection: Promise<ResticConnection> | undefined;

  constructor(options: ResticOptions) {
    if (!options.repository) throw new TypeError('restic: no repository');
    if (options.password.trim() === '') throw new TypeError('restic: an empty password is not a password');
    this.#options = options;
  }

  /** Creates the repository: format 2 (compression), optionally with another's chunker parameters for `copy`. */
  async init(options: { copyChunkerParamsFrom?: ResticSecondary } = {}): Promise<void> {
    const from = options.copyChunkerParamsFrom;
    await this.#run({ args: ['init', '--repository-version=2', ...(from ? ['--copy-chunker-params'] : [])], from });
  }

  /** Whether a repository is there; throws when one is but cannot be opened (a wrong password, say). */
  async isInitialised(): Promise<boolean> {
    try {
      await this.#run({ args: ['cat', 'config'] });
      return true;
    } catch (err) {
      if (err instanceof ResticError && err.kind === 'not_initialised') return false;
      throw err;
    }
  }

  /**
   * Backs `paths` up into a new snapshot. Unreadable items are warnings (restic's exit 3: the
   * snapshot is made without them), as with the tar archives.
   */
  async backup(paths: readonly string[], options: ResticBackupOptions = {}): Promise<ResticBackupSummary> {
    let summary: Json | undefined;
    let warnings = 0;
    const { exit } = await this.#run(
      {
        args: backupArgs(paths, options),
        onStdoutLine: (line) => {
          const raw = jsonLine(line);
          if (raw?.message_type === 'status') options.onProgress?.(statusOf(raw));
          else if (raw?.message_type === 'summary') summary = raw;
        },
        onStderrLine: (line) => {
          const warning = backupWarningOf(line);
          if (!warning) return;
          warnings++;
          options.onWarning?.(warning.message, warning.path);
        },
      },
      [0, 3],
    );
    if (!summary) throw new ResticError('backup', exit.kind, exit.code, `${exit.stderr}\n(no summary line)`);
    const shortId = String(summary.snapshot_id);
    const known = await options.resolveSnapshotId?.(shortId).catch(() => undefined);
    if (known) return summaryOf(summary, known, warnings);
    const [snapshot] = await this.snapshots([shortId]);
    if (!snapshot)
      throw new ResticError('backup', 'other', exit.code, `snapshot ${shortId} was not found after the backup`);
    return summaryOf(summary, snapshot.id, warnings);
  }

  /** Every snapshot, or those with these ids, oldest first. */
  async snapshots(ids: readonly string[] = []): Promise<ResticSnapshot[]> {
    const { stdout } = await this.#run({ args: ['snapshots', '--json', '--', ...ids.map(snapshotRef)] });
    const list = JSON.parse(stdout || '[]') as Json[] | null;
    return (list ?? []).map(snapshotOf);
  }

  /**
   * The nodes of a snapshot, streamed as restic prints them: all of it, or `path` and its
   * children (everything below it with `recursive`). Stopping the iteration stops restic.
   */
  async *ls(snapshotId: string, path?: string, options: { recursive?: boolean } = {}): AsyncGenerator<ResticNode> {
    const args = ['ls', '--json', ...(options.recursive ? ['--recursive'] : []), '--', snapshotRef(snapshotId)];
    const child = startRestic(await this.#connect(), { args: path === undefined ? args : [...args, path] });
    let complete = false;
    try {
      for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
        const raw = jsonLine(line);
        // the first line is the snapshot itself
        if (raw?.struct_type === 'node') yield nodeOf(raw);
      }
      complete = true;
    } finally {
      if (!complete) child.stop();
      const exit = await child.exited;
      if (complete) succeeded(exit);
    }
  }

  /** Restores a snapshot (or the parts `include` names: absolute paths or globs) under `target`, paths kept. */
  async restore(snapshotId: string, target: string, options: { include?: readonly string[] } = {}): Promise<void> {
    const include = (options.include ?? []).map((pattern) => `--include=${pattern}`);
    await this.#run({ args: ['restore', `--target=${target}`, ...include, '--', snapshotRef(snapshotId)] });
  }

  /**
   * A file's bytes, or a folder as an archive (tar unless `zip`), streamed from restic's stdout.
   * The stream ends only once restic exited well, and fails with its ResticError otherwise;
   * destroying it stops restic.
   */
  dump(snapshotId: string, path: string, options: { archive?: 'tar' | 'zip' } = {}): Readable {
    const out = new PassThrough({ highWaterMark: 1024 * 1024 });
    const args = ['dump', `--archive=${options.archive ?? 'tar'}`, '--', snapshotRef(snapshotId), path];
    const stream = async (): Promise<void> => {
      const connection = await this.#connect();
      if (out.destroyed) return; // the reader gave up before restic started
      const child = startRestic(connection, { args });
      out.once('close', () => {
        child.stdout.resume(); // a reader that stopped early: let restic's writes through while it exits
        child.stop();
      });
      child.stdout.pipe(out, { end: false });
      succeeded(await child.exited);
      out.end();
    };
    stream().catch((err: unknown) => out.destroy(err as Error));
    return out;
  }

  /** Removes snapshots (their data stays until prune); returns the ids restic found no snapshot for. */
  async forget(snapshotIds: readonly string[]): Promise<{ notFound: string[] }> {
    if (snapshotIds.length === 0) return { notFound: [] };
    const notFound: string[] = [];
    await this.#run({
      args: ['forget', '--', ...snapshotIds.map(snapshotRef)],
      onStderrLine: (line) => {
        const m = /^Ignoring "([^"]+)": no matching ID found/.exec(line);
        if (m) notFound.push(m[1]!);
      },
    });
    return { notFound };
  }

  /** Deletes the data no snapshot uses any more (takes the repository's exclusive lock). */
  async prune(): Promise<void> {
    await this.#run({ args: ['prune'] });
  }

  /**
   * Checks the repository's structure, and reads `readDataSubset` of its packs. A damaged
   * repository is a result (`ok: false`, error.kind 'damaged'); any other failure (wrong
   * password, locked) throws.
   */
  async check(options: ResticCheckOptions = {}): Promise<ResticCheckResult> {
    let output = '';
    const keep = (line: string): void => {
      output = (output + line + '\n').slice(-CHECK_OUTPUT);
    };
    const subset = options.readDataSubset ? [`--read-data-subset=${options.readDataSubset}`] : [];
    try {
      await this.#run({ args: ['check', ...subset], onStdoutLine: keep, onStderrLine: keep });
      return { ok: true, output };
    } catch (err) {
      if (err instanceof ResticError && err.kind === 'damaged') return { ok: false, output, error: err };
      throw err;
    }
  }

  /** Copies snapshots (all when `snapshotIds` is empty) from another repository into this one. */
  async copy(from: ResticSecondary, snapshotIds: readonly string[] = []): Promise<ResticCopied[]> {
    const report = new CopyReport();
    await this.#run({
      args: ['copy', '--', ...snapshotIds.map(snapshotRef)],
      from,
      onStdoutLine: (line) => report.line(line),
    });
    return report.copied;
  }

  /** The repository's size: stored bytes (`raw-data`, the default) or what a restore of every snapshot writes. */
  async stats(options: { mode?: ResticStatsMode } = {}): Promise<ResticStats> {
    const { stdout } = await this.#run({ args: ['stats', '--json', `--mode=${options.mode ?? 'raw-data'}`] });
    return statsOf(JSON.parse(stdout) as Json);
  }

  /** Removes stale locks (those of processes gone from this host, or older than 30 minutes); all with `removeAll`. */
  async unlock(options: { removeAll?: boolean } = {}): Promise<void> {
    await this.#run({ args: ['unlock', ...(options.removeAll ? ['--remove-all'] : [])] });
  }

  #connect(): Promise<ResticConnection> {
    this.#connection ??= (async () => {
      const o = this.#options;
      const program = o.program ?? (await findRestic());
      return {
        command: program.command,
        repository: o.repository,
        password: o.password,
        env: o.env,
        cacheDir: o.cacheDir,
        cacert: o.cacert,
        signal: o.signal,
        killGraceMs: o.killGraceMs,
      };
    })();
    // a failed lookup is not kept: the next call looks again
    this.#connection.catch(() => (this.#connection = undefined));
    return this.#connection;
  }

  /**
   * One restic process to its end. A lock held by another restic is waited out (up to
   * `lockWaitMs`): restic fails at once when it cannot take its lock, before it reads or writes
   * anything, so the same call can simply run again.
   */
  async #run(call: ResticCall, okCodes?: readonly number[]): Promise<{ stdout: string; exit: ResticExit }> {
    const connection = await this.#connect();
    const { lockWaitMs = 0, onLockWait, signal } = this.#options;
    const deadline = Date.now() + lockWaitMs;
    for (let pause = LOCK_RETRY_MS; ; pause = Math.min(pause * 2, LOCK_RETRY_MAX_MS)) {
      try {
        return await runRestic(connection, call, okCodes);
      } catch (err) {
        const left = deadline - Date.now();
        if (!(err instanceof ResticError) || err.kind !== 'locked' || left <= 0) throw err;
        const wait = Math.min(pause, left);
        onLockWait?.(err, wait);
        try {
          await sleep(wait, undefined, signal ? { signal } : {});
        } catch {
          throw signal ? abortReason(signal) : err;
        }
      }
    }
  }
}

/** A snapshot id (full or a prefix) or `latest`; anything else could be read as an option. */
function snapshotRef(id: string): string {
  if (!/^(latest|[0-9a-f]{1,64})$/.test(id)) throw new TypeError(`restic: ${JSON.stringify(id)} is not a snapshot id`);
  return id;
}

function succeeded(exit: ResticExit): void {
  if (exit.code !== 0) throw resticFailure(exit);
}

function jsonLine(line: string): Json | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as Json;
  } catch {
    return undefined;
  }
}
