import { PassThrough, type Duplex } from 'node:stream';
import zlib from 'node:zlib';
import { toolAvailable, toolStream, type DumpCompressor } from '@backplane/plugin-api';

export type Compression = 'zstd' | 'gzip' | 'none';

export const COMPRESSIONS: readonly Compression[] = ['zstd', 'gzip', 'none'];
export const DEFAULT_ZSTD_LEVEL = 3;
export const DEFAULT_GZIP_LEVEL = 6;

/** File name suffix of each compression (`.tar` + this, before `.age`). */
export function compressionExtension(c: Compression): string {
  return c === 'zstd' ? '.zst' : c === 'gzip' ? '.gz' : '';
}

/**
 * The zstd program to run, or undefined to compress in-process: `BACKPLANE_ZSTD_BINARY`
 * (`none` turns the program off), else `zstd` when it is installed. The program runs in its
 * own process, beside the tar and encryption work, and is faster than Node's binding.
 */
export function zstdProgram(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const configured = env.BACKPLANE_ZSTD_BINARY;
  if (configured === 'none') return undefined;
  const command = configured || 'zstd';
  return toolAvailable(command) ? command : undefined;
}

/**
 * A stream that compresses to the standard format the stock tools read (`zstd -d`,
 * `gzip -d`); `none` passes bytes through. The zstd frames carry a content checksum, as the
 * zstd CLI writes by default.
 */
export function compressor(c: Compression, level?: number): Duplex {
  switch (c) {
    case 'zstd': {
      const program = compressorProgram(c, level);
      if (program) return toolStream(program.command, program.args);
      return zlib.createZstdCompress({
        // Larger output pieces than zlib's 16 KiB default halve the per-call overhead.
        chunkSize: 128 * 1024,
        params: {
          [zlib.constants.ZSTD_c_compressionLevel]: level ?? DEFAULT_ZSTD_LEVEL,
          [zlib.constants.ZSTD_c_checksumFlag]: 1,
        },
      });
    }
    case 'gzip':
      return zlib.createGzip({ level: level ?? DEFAULT_GZIP_LEVEL, chunkSize: 128 * 1024 });
    case 'none':
      return new PassThrough();
    default:
      throw new Error(`unknown compression ${JSON.stringify(c as string)}`);
  }
}

/** A program and its arguments that compress stdin to stdout. */
export interface CompressorProgram {
  command: string;
  args: string[];
}

/**
 * The external program for a compression, when one is used: zstd (see {@link zstdProgram}).
 * gzip stays in-process (zlib on the thread pool is as fast as gzip(1) and needs no program).
 */
export function compressorProgram(
  c: Compression,
  level?: number,
  env: NodeJS.ProcessEnv = process.env,
): CompressorProgram | undefined {
  if (c !== 'zstd') return undefined;
  const command = zstdProgram(env);
  return command ? { command, args: [`-${level ?? DEFAULT_ZSTD_LEVEL}`, '-T1', '-q', '-c', '--check'] } : undefined;
}

/**
 * The compressor offered to a database dump (see DumpOptions.compressor): the same program
 * and level, made to report its exact byte counts on stderr (`-vv` prints sizes in bytes,
 * `--no-progress` keeps it to the one final line: `(123456789 B => 23456789 B, ...)`).
 */
export function dumpCompressor(
  c: Compression,
  level?: number,
  env: NodeJS.ProcessEnv = process.env,
): DumpCompressor | undefined {
  const program = compressorProgram(c, level, env);
  if (!program) return undefined;
  const args = program.args.filter((a) => a !== '-q').concat('-vv', '--no-progress');
  return { command: program.command, args, rawBytes: zstdRawBytes };
}

/** The input size of zstd's final `-vv` report, or undefined when stderr has none. */
export function zstdRawBytes(stderr: string): number | undefined {
  const reports = [...stderr.matchAll(/\((\d+) B =>\s*\d+ B/g)];
  const last = reports.at(-1);
  return last ? Number(last[1]) : undefined;
}

/** The inverse of {@link compressor}. */
export function decompressor(c: Compression): Duplex {
  switch (c) {
    case 'zstd': {
      const program = zstdProgram();
      return program ? toolStream(program, ['-d', '-q', '-c']) : zlib.createZstdDecompress();
    }
    case 'gzip':
      return zlib.createGunzip();
    case 'none':
      return new PassThrough();
    default:
      throw new Error(`unknown compression ${JSON.stringify(c as string)}`);
  }
}
