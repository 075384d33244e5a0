import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { toolEnv } from '@backplane/plugin-api';
import { zstdProgram } from '../stream/compression.ts';
import { killChild, spawnTar, tarExited } from '../archive/gnu-tar-source.ts';
import { listedMember, parseIndexLine } from '../archive/tar-index.ts';
import { archivePath } from './safe-extract.ts';
import { drained } from '../archive/tar-entry-flow.ts';

/**
 * Extracts a whole archive with GNU tar into an empty staging folder (staged-restore.ts moves it
 * into place afterwards): C speed instead of several file-system round trips per entry through
 * Node's thread pool, measured (docs/benchmarks.md). The staging folder is fresh and empty, so
 * what tar itself guards is enough: it refuses `..` in names, strips leading `/`, and creates a
 * link whose target is absolute or climbs with `..` only after every other member, so no member
 * is written through one. Members it should not make at all (devices, FIFOs, hard links) are
 * removed from the staging folder again, with a warning, before anything moves; the move
 * (rooted-folders.ts) never goes through a link on disk that leaves the restore root.
 *
 * A zstd archive is decompressed by the zstd program, started here with its output as tar's
 * input, as `zstd -d | tar -x` does: tar's own `--use-compress-program` copies an archive that
 * arrives on a pipe or socket to the decompressor in 512-byte writes (strace: ten times the
 * system calls of `zstd -d | tar -x`, which doubled the CPU of a restore; docs/benchmarks.md).
 * Other archives reach tar decompressed. Every member tar lists (`-vv`) reaches `onEntry` for
 * the manifest comparison. Run as root, tar restores owners, as `tar -x` does.
 */

export interface TarExtractEntry {
  rawName: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}

/** The archive as tar takes it: a tar, or a tar compressed with zstd (run as a program). */
export type TarInput = 'tar' | 'zstd';

export async function gnuTarExtract(
  program: string,
  archive: Readable,
  options: {
    dir: string;
    input: TarInput;
    onEntry: (entry: TarExtractEntry) => void;
    onWarning?: (message: string) => void;
    signal?: AbortSignal;
    /** An archive of a differential chain: its folder listings are applied (files gone since are removed). */
    incremental?: boolean;
  },
): Promise<void> {
  const args = ['--extract', '--file=-', `--directory=${options.dir}`, '-vv', '--full-time', '--quoting-style=c'];
  if (options.incremental) args.push('--listed-incremental=/dev/null');
  let stderr = '';
  let zstdStderr = '';
  const zstd = options.input === 'zstd' ? spawnZstdDecompress() : undefined;
  const tar = spawnTar(program, args, zstd?.stdout ?? 'pipe');
  // tar holds its own copy of zstd's output now: with this one closed, zstd's writes fail once
  // tar is gone instead of filling a socket nobody reads.
  zstd?.stdout!.destroy();
  zstd?.stderr!.on('data', (chunk: Buffer) => {
    if (zstdStderr.length < 4096) zstdStderr += chunk.toString();
  });
  const decompressed = zstd ? tarExited(zstd, zstd.command, 0, () => zstdStderr, 'zstd') : Promise.resolve();
  decompressed.catch(() => undefined);
  const kill = (): void => {
    killChild(tar);
    killChild(zstd);
  };
  // tar's message on a cut-short archive is "Unexpected EOF"; zstd's says why, so a failed tar
  // waits a moment for zstd (which ends once its output is gone) and leads with its reason.
  const exit = tarExited(tar, program, 0, () => stderr).catch(async (err: unknown) => {
    const timer = setTimeout(() => killChild(zstd), 2000);
    const cause = await decompressed.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    clearTimeout(timer);
    throw cause && !/was killed/.test(cause.message) ? new Error(`${cause.message}; ${(err as Error).message}`) : err;
  });
  exit.catch(() => undefined); // awaited later; a tar that dies early must not be an unhandled rejection meanwhile
  options.signal?.addEventListener('abort', kill, { once: true });
  const unwanted: string[] = [];
  const listing = (async () => {
    for await (const line of createInterface({ input: tar.stdout!, crlfDelay: Infinity })) {
      const entry = parseIndexLine(line);
      if (entry) {
        options.onEntry({ rawName: entry.path, type: entry.type, size: entry.size });
        continue;
      }
      const member = listedMember(line);
      if (member) {
        unwanted.push(member.name);
        options.onEntry({ rawName: member.name, type: 'other', size: 0 });
      }
    }
  })();
  const errors = (async () => {
    for await (const line of createInterface({ input: tar.stderr!, crlfDelay: Infinity })) {
      if (stderr.length < 4096) stderr += `${line}\n`;
      options.onWarning?.(line.replace(/^tar: /, ''));
    }
  })();
  try {
    const fed = feed(archive, zstd ? zstd.stdin! : tar.stdin!, options.signal);
    await Promise.all([
      fed.catch((err: unknown) => {
        kill();
        throw err;
      }),
      exit,
      listing,
      errors,
    ]);
    // tar read the whole archive (it drains its input), so zstd has checked its frames by now
    await decompressed;
  } finally {
    kill();
    options.signal?.removeEventListener('abort', kill);
  }
  for (const name of unwanted) {
    const rel = archivePath(name);
    if (typeof rel !== 'string') continue;
    await rm(join(options.dir, rel), { force: true });
    options.onWarning?.(`skipped ${rel}: not a file, folder or symbolic link`);
  }
}

/** `zstd -d` from stdin to stdout: a frame whose checksum does not match fails it. */
function spawnZstdDecompress(): ChildProcess & { command: string } {
  const command = zstdProgram();
  if (!command) throw new Error('gnuTarExtract: no zstd program');
  const env = toolEnv(process.env);
  return Object.assign(spawn(command, ['-d', '-q', '-c'], { env, stdio: ['pipe', 'pipe', 'pipe'] }), { command });
}

/**
 * Writes the archive to tar's (or zstd's) stdin, and reads it to its end even after tar stopped taking it:
 * tar stops at the end-of-archive blocks, but the stored bytes are only proven (length,
 * checksum, age's last chunk) once the input ended, and that is what fails a bad artifact.
 */
async function feed(input: Readable, stdin: Writable, signal: AbortSignal | undefined): Promise<void> {
  let open = true;
  const closed = (): void => {
    open = false;
  };
  stdin.on('error', closed); // EPIPE once tar exited: its exit status tells whether that was fine
  stdin.on('close', closed);
  for await (const chunk of input) {
    if (signal?.aborted) throw signal.reason;
    if (!open) continue;
    if (!stdin.write(chunk)) await drained(stdin, signal);
  }
  if (open) stdin.end();
}
