import { createHash, randomBytes } from 'node:crypto';
import { ProviderError } from './contracts.ts';

/**
 * The key rules every storage provider shares. Keys are `/`-separated paths relative to the
 * target's root: no leading `/`, no empty, `.` or `..` segments, no control characters. The
 * same key must name the same object on every backend, so the rules do not vary; a provider
 * adds only the names it reserves for itself (temporary uploads, probes).
 */
export interface KeyRules {
  /** Used in error messages: `local disk`, `rclone`, `google drive`. */
  provider: string;
  /** A provider's own refusals for one segment (reserved names, byte limits). */
  segmentProblem?: (segment: string) => string | undefined;
}

export const MAX_KEY_LENGTH = 4096;

/**
 * The temporary names of uploads in progress for providers that write beside the final object
 * and rename (`.<name>.<16 hex>.partial`): list() hides them and no key may use one.
 */
export const TEMP_UPLOAD_NAME = /^\..*\.[0-9a-f]{16}\.partial$/s;

/** How much of the final name a temporary name shows (it must stay within NAME_MAX, 255 bytes). */
const SHOWN_CHARACTERS = 32;

function tempStem(finalName: string): string {
  const shown = Array.from(finalName).slice(0, SHOWN_CHARACTERS).join('');
  // The first 8 of the 16 hex digits are a digest of the whole final name, so the temporaries of
  // one key can be found again after a crash (two names sharing their first 32 characters still
  // differ here); the other 8 are random, so concurrent uploads to one key never share a file.
  const tag = createHash('sha256').update(finalName).digest('hex').slice(0, 8);
  return `.${shown}.${tag}`;
}

/** A temporary name beside `finalName`: `.<first 32 characters>.<8 hex digest><8 hex random>.partial`. */
export function temporaryUploadName(finalName: string): string {
  return `${tempStem(finalName)}${randomBytes(4).toString('hex')}.partial`;
}

/** True when `name` is a temporary name temporaryUploadName(`finalName`) could have produced. */
export function isTemporaryUploadOf(name: string, finalName: string): boolean {
  const stem = tempStem(finalName);
  return name.startsWith(stem) && /^[0-9a-f]{8}\.partial$/.test(name.slice(stem.length));
}

/** Segment rules of path-like backends that stage uploads under TEMP_UPLOAD_NAME. */
export function pathLikeSegmentProblem(segment: string): string | undefined {
  if (segment.includes('\\')) return 'backslashes are not allowed (they separate folders on Windows)';
  if (TEMP_UPLOAD_NAME.test(segment))
    return 'names of the form ".<name>.<16 hex>.partial" are reserved for uploads in progress';
  return undefined;
}

function refuse(rules: KeyRules, what: string, value: string, why: string): never {
  const shown = value.length > 200 ? `${value.slice(0, 200)}…` : value;
  throw new ProviderError('permanent', `${rules.provider}: invalid ${what} ${JSON.stringify(shown)}: ${why}`);
}

/** Why a segment is not allowed, or undefined when it is fine. */
export function segmentProblem(segment: string, rules: KeyRules): string | undefined {
  if (segment === '') return 'empty path segment (leading, trailing or double "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
  // NUL cannot travel through argv or C APIs; other control characters would turn a key into
  // something else in a log line or on a backend that rewrites them.
  if (/[\u0000-\u001f\u007f]/.test(segment)) return 'control characters (NUL, line breaks...) are not allowed';
  return rules.segmentProblem?.(segment);
}

function checkHead(value: unknown, what: 'key' | 'prefix', rules: KeyRules): value is string {
  if (typeof value !== 'string') throw new ProviderError('permanent', `${rules.provider}: a ${what} must be a string`);
  if (value.length > MAX_KEY_LENGTH) refuse(rules, what, value, `longer than ${MAX_KEY_LENGTH} characters`);
  if (value.startsWith('/'))
    refuse(
      rules,
      what,
      value,
      `${what === 'key' ? 'keys' : 'prefixes'} are relative to the target, not absolute paths`,
    );
  return true;
}

/** The segments of a valid key; throws ProviderError('permanent') for any other. */
export function keySegments(key: unknown, rules: KeyRules): string[] {
  if (key === '') throw new ProviderError('permanent', `${rules.provider}: a key must be a non-empty string`);
  checkHead(key, 'key', rules);
  const segments = (key as string).split('/');
  for (const segment of segments) {
    const problem = segmentProblem(segment, rules);
    if (problem) refuse(rules, 'key', key as string, problem);
  }
  return segments;
}

/**
 * A list prefix as the folders it certainly lies in and the start of the next name: a plain
 * string prefix, so `task/20` lists `task/2025/...` and `task/2026/...`. `''` lists everything.
 */
export function prefixParts(prefix: unknown, rules: KeyRules): { folders: string[]; partial: string } {
  if (prefix === '') return { folders: [], partial: '' };
  checkHead(prefix, 'prefix', rules);
  const segments = (prefix as string).split('/');
  const partial = segments.pop() ?? '';
  for (const segment of partial === '' ? segments : [...segments, partial]) {
    const problem = segmentProblem(segment, rules);
    if (problem) refuse(rules, 'prefix', prefix as string, problem);
  }
  return { folders: segments, partial };
}
