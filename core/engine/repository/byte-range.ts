/** Inclusive byte offsets inside an object, as HTTP and StorageInstance.get count them. */
export interface ByteRange {
  start: number;
  end: number;
}

const SINGLE = /^bytes=(\d*)-(\d*)$/;

function offset(digits: string): number | undefined {
  if (digits === '') return undefined;
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : Number.NaN;
}

/**
 * One `Range: bytes=a-b | a- | -n` header against an object of `size` bytes (RFC 9110 §14.1.2):
 * the slice to send, `'unsatisfiable'` (answer 416), or undefined to send the whole object. A
 * header that is absent, malformed, of another unit or asks for several ranges is ignored, as
 * the RFC allows; so is any range of an empty object, because restic 0.14 sends `bytes=0-` with
 * every read and an empty object has no byte for it to start at.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : SINGLE.exec(header.trim());
  if (!match || size === 0) return undefined;
  const first = offset(match[1]!);
  const last = offset(match[2]!);
  if (Number.isNaN(first) || Number.isNaN(last)) return undefined;
  if (first === undefined) {
    // `-n`: the last n bytes; `-` alone is malformed, `-0` asks for nothing.
    if (last === undefined) return undefined;
    if (last === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - last), end: size - 1 };
  }
  if (last !== undefined && last < first) return undefined;
  if (first >= size) return 'unsatisfiable';
  return { start: first, end: Math.min(last ?? size - 1, size - 1) };
}
