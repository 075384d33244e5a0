import { ProviderError } from '../../core/plugin-host/contracts.ts';

/**
 * Keys are `/`-separated paths below the target's base folder; each segment is one Drive folder
 * (or, for the last one, the file's name). Drive itself has no paths, so nothing can "escape"
 * the base folder, but keys with `.`/`..`/empty segments are still refused: they would mean
 * something else on every other backend, and the same key must name the same object everywhere.
 */

const MAX_KEY_LENGTH = 4096;
/** Drive caps names at 32 767 bytes; a segment longer than this is certainly a mistake. */
const MAX_SEGMENT_BYTES = 1024;

/** The name of testConnection's probe file; list() skips it and no key may use it. */
export const PROBE_NAME = /^\.backplane-probe-[0-9a-f]{32}$/;

function refuse(what: string, value: string, why: string): never {
  throw new ProviderError('permanent', `google drive: invalid ${what} ${JSON.stringify(value.slice(0, 200))}: ${why}`);
}

function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'empty path segment (leading, trailing or double "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
  if (segment.includes('\0')) return 'NUL characters are not allowed';
  if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
  if (PROBE_NAME.test(segment)) return 'names of the form ".backplane-probe-<32 hex>" are reserved for connection tests';
  return undefined;
}

/** A valid key as its folder segments and its file name. */
export function splitKey(key: unknown): { folders: string[]; name: string } {
  if (typeof key !== 'string' || key === '') throw new ProviderError('permanent', 'google drive: a key must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) refuse('key', key, `longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith('/')) refuse('key', key, 'keys are relative to the target, not absolute paths');
  const segments = key.split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) refuse('key', key, problem);
  }
  const name = segments.pop()!;
  return { folders: segments, name };
}

/**
 * A list prefix as the folders it certainly lies in and the start of the next name
 * (`task/20` lists `task/2025/...`, `task/2026/...` and `task/20x`). The empty prefix lists everything.
 */
export function splitPrefix(prefix: unknown): { folders: string[]; partial: string } {
  if (typeof prefix !== 'string') throw new ProviderError('permanent', 'google drive: a prefix must be a string');
  if (prefix === '') return { folders: [], partial: '' };
  if (prefix.length > MAX_KEY_LENGTH) refuse('prefix', prefix, `longer than ${MAX_KEY_LENGTH} characters`);
  if (prefix.startsWith('/')) refuse('prefix', prefix, 'prefixes are relative to the target, not absolute paths');
  const segments = prefix.split('/');
  const partial = segments.pop()!;
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) refuse('prefix', prefix, problem);
  }
  if (partial === '.' || partial === '..') refuse('prefix', prefix, `"${partial}" segments are not allowed`);
  if (partial.includes('\0')) refuse('prefix', prefix, 'NUL characters are not allowed');
  return { folders: segments, partial };
}

/** A string literal for Drive's `q` query language: `'` and `\` escaped with a backslash. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
