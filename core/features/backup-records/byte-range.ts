import { AppError } from '../../http/app-error.ts';

export interface ByteRange {
  start: number;
  end: number;
}

/**
 * One `bytes=` range of an artifact of `size` bytes (RFC 9110): `a-b`, `a-` or `-n`. Several
 * ranges are answered with the whole artifact (a multipart reply buys clients nothing here);
 * a syntactically foreign header is ignored; an unsatisfiable one is 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return undefined;
  const [, a, b] = m;
  if (a === '' && b === '') return undefined;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) throw new AppError('BACKUP_RANGE_NOT_SATISFIABLE');
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return undefined;
  }
  if (start >= size || size === 0) throw new AppError('BACKUP_RANGE_NOT_SATISFIABLE');
  return { start, end };
}
