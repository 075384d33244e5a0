import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { Writable } from 'node:stream';
import { compressorProgram, type Compression } from '../engine/compression.ts';
import { killChild, spawnTar, tarCompressor, tarExited } from '../engine/gnu-tar-source.ts';
import { listedMember, parseIndexLine } from '../engine/tar-index.ts';
import { archivePath } from './safe-extract.ts';
import { drained } from '../engine/tar-entry-flow.ts';

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
 * The compressed bytes go to tar, which runs the decompressor itself. Every member tar lists
 * (`-vv`) reaches `onEntry` for the manifest comparison. Run as root, tar restores owners, as
 * `tar -x` does.
 */

export interface TarExtractEntry {
  rawName: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}

/** The zstd tar can start to decompress (`--use-compress-program` runs it with `-d`), if any. */
export function tarZstd(): string | undefined {
  return tarCompressor(compressorProgram('zstd'))?.command;
}

export async function gnuTarExtract(program: string, compressed: Readable, options: {
  dir: string;
  compression: Compression;
  onEntry: (entry: TarExtractEntry) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}): Promise<void> {
  const args = ['--extract', '--file=-', `--directory=${options.dir}`, '-vv', '--full-time', '--quoting-style=c'];
  if (options.compression === 'gzip') args.push('--gzip');
  if (options.compression === 'zstd') {
    const zstd = tarZstd();
    if (!zstd) throw new Error('gnuTarExtract: no zstd program tar can run');
    args.push(`--use-compress-program=${zstd}`);
  }
  let stderr = '';
  const tar = spawnTar(program, args);
  const exit = tarExited(tar, program, 0, () => stderr);
  exit.catch(() => undefined); // awaited later; a tar that dies early must not be an unhandled rejection meanwhile
  const kill = (): void => killChild(tar);
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
    const fed = feed(compressed, tar.stdin!, options.signal);
    await Promise.all([fed.catch((err: unknown) => { kill(); throw err; }), exit, listing, errors]);
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

/**
 * Writes the archive to tar's stdin, and reads it to its end even after tar stopped taking it:
 * tar stops at the end-of-archive blocks, but the stored bytes are only proven (length,
 * checksum, age's last chunk) once the input ended, and that is what fails a bad artifact.
 */
async function feed(input: Readable, stdin: Writable, signal: AbortSignal | undefined): Promise<void> {
  let open = true;
  const closed = (): void => { open = false; };
  stdin.on('error', closed); // EPIPE once tar exited: its exit status tells whether that was fine
  stdin.on('close', closed);
  for await (const chunk of input) {
    if (signal?.aborted) throw signal.reason;
    if (!open) continue;
    if (!stdin.write(chunk)) await drained(stdin, signal);
  }
  if (open) stdin.end();
}
