import { PassThrough, type Transform } from 'node:stream';
import zlib from 'node:zlib';

export type Compression = 'zstd' | 'gzip' | 'none';

export const COMPRESSIONS: readonly Compression[] = ['zstd', 'gzip', 'none'];
export const DEFAULT_ZSTD_LEVEL = 3;
export const DEFAULT_GZIP_LEVEL = 6;

/** File name suffix of each compression (`.tar` + this, before `.age`). */
export function compressionExtension(c: Compression): string {
  return c === 'zstd' ? '.zst' : c === 'gzip' ? '.gz' : '';
}

/**
 * A Transform that compresses to the standard format the stock tools read (`zstd -d`,
 * `gzip -d`); `none` passes bytes through. The zstd frames carry a content checksum, as the
 * zstd CLI writes by default.
 */
export function compressor(c: Compression, level?: number): Transform {
  switch (c) {
    case 'zstd':
      return zlib.createZstdCompress({
        // Larger output pieces than zlib's 16 KiB default halve the per-call overhead.
        chunkSize: 128 * 1024,
        params: {
          [zlib.constants.ZSTD_c_compressionLevel]: level ?? DEFAULT_ZSTD_LEVEL,
          [zlib.constants.ZSTD_c_checksumFlag]: 1,
        },
      });
    case 'gzip':
      return zlib.createGzip({ level: level ?? DEFAULT_GZIP_LEVEL, chunkSize: 128 * 1024 });
    case 'none':
      return new PassThrough();
    default:
      throw new Error(`unknown compression ${JSON.stringify(c as string)}`);
  }
}

/** The inverse of {@link compressor}. */
export function decompressor(c: Compression): Transform {
  switch (c) {
    case 'zstd':
      return zlib.createZstdDecompress();
    case 'gzip':
      return zlib.createGunzip();
    case 'none':
      return new PassThrough();
    default:
      throw new Error(`unknown compression ${JSON.stringify(c as string)}`);
  }
}
