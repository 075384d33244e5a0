import { resolve, sep } from 'node:path';
import { ProviderError } from '../../core/plugin-host/contracts.ts';

/**
 * In-progress uploads: `.<name>.<16 hex>.partial` beside the final file. list() skips them and
 * no key may use such a name, so an upload in flight can never be mistaken for an object.
 */
export const TEMP_NAME = /^\..*\.[0-9a-f]{16}\.partial$/s;

const MAX_KEY_LENGTH = 4096;

function refuse(what: string, value: string, why: string): never {
  throw new ProviderError('permanent', `local disk: invalid ${what} ${JSON.stringify(value)}: ${why}`);
}

/** Why a single path segment is not allowed, or undefined when it is fine. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'empty path segment (leading, trailing or double "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
  if (segment.includes('\\')) return 'backslashes are not allowed (they separate folders on Windows)';
  if (segment.includes('\0')) return 'NUL characters are not allowed';
  if (TEMP_NAME.test(segment)) return 'names of the form ".<name>.<16 hex>.partial" are reserved for uploads in progress';
  return undefined;
}

/** The segments of a valid key: relative, `/`-separated, no `.`/`..`/empty segments, no `\` or NUL. */
export function keySegments(key: unknown): string[] {
  if (typeof key !== 'string' || key === '') throw new ProviderError('permanent', 'local disk: a key must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) refuse('key', key.slice(0, 64), `longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith('/')) refuse('key', key, 'keys are relative to the target, not absolute paths');
  const segments = key.split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) refuse('key', key, problem);
  }
  return segments;
}

/**
 * The folder segments of a list prefix, and its trailing partial name (`task/20` lists
 * `task/2025/...` and `task/2026/...`). The empty prefix lists everything.
 */
export function prefixParts(prefix: unknown): { folders: string[]; partial: string } {
  if (typeof prefix !== 'string') throw new ProviderError('permanent', 'local disk: a prefix must be a string');
  if (prefix === '') return { folders: [], partial: '' };
  if (prefix.length > MAX_KEY_LENGTH) refuse('prefix', prefix.slice(0, 64), `longer than ${MAX_KEY_LENGTH} characters`);
  if (prefix.startsWith('/')) refuse('prefix', prefix, 'prefixes are relative to the target, not absolute paths');
  const segments = prefix.split('/');
  const partial = segments.pop() ?? '';
  for (const segment of segments) {
    const problem = segmentProblem(segment);
    if (problem) refuse('prefix', prefix, problem);
  }
  if (partial !== '') {
    const problem = segmentProblem(partial);
    if (problem) refuse('prefix', prefix, problem);
  }
  return { folders: segments, partial };
}

/**
 * Joins validated segments onto the base and checks, once more, that the result is inside it;
 * the segment rules already make escaping impossible, this is the belt to their braces.
 */
export function inside(base: string, segments: string[], what: string): string {
  const root = base.endsWith(sep) ? base : base + sep;
  const path = resolve(base, ...segments);
  if (path !== base && !path.startsWith(root)) refuse(what, segments.join('/'), 'resolves outside the target folder');
  return path;
}
