import { randomBytes } from 'node:crypto';
import { ProviderError } from '../../core/plugin-host/contracts.ts';

/**
 * Object keys and where they land inside an rclone remote. Keys are `/`-separated and relative
 * to the target's `path`; nothing here touches rclone, so the rules are the same on every backend.
 */

/**
 * In-progress uploads: `.<name>.<16 hex>.partial` beside the final object (the same shape the
 * local-disk provider uses). list() hides them and no key may use such a name, so an upload in
 * flight is never mistaken for an object.
 */
export const TEMP_NAME = /^\..*\.[0-9a-f]{16}\.partial$/s;

/** Names of testConnection's probe objects (deleted again by the probe). */
export const PROBE_PREFIX = '.backplane-probe-';
const PROBE_NAME = /^\.backplane-probe-[0-9a-f]{16}$/;

const MAX_KEY_LENGTH = 4096;

function refuse(what: string, value: string, why: string): never {
  throw new ProviderError('permanent', `rclone: invalid ${what} ${JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value)}: ${why}`);
}

/** Why a single path segment is not allowed, or undefined when it is fine. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === '') return 'empty path segment (leading, trailing or double "/")';
  if (segment === '.' || segment === '..') return `"${segment}" segments are not allowed`;
  // NUL cannot travel through argv at all; other control characters are refused so that a key
  // never turns into something else in a log line or on a backend that rewrites them.
  if (/[\u0000-\u001f\u007f]/.test(segment)) return 'control characters (NUL, line breaks...) are not allowed';
  if (segment.includes('\\')) return 'backslashes are not allowed (they separate folders on Windows)';
  if (TEMP_NAME.test(segment)) return 'names of the form ".<name>.<16 hex>.partial" are reserved for uploads in progress';
  return undefined;
}

/** Checks a key: a non-empty relative `/`-path without `.`, `..` or empty segments. Returns it unchanged. */
export function checkKey(key: unknown): string {
  if (typeof key !== 'string' || key === '') throw new ProviderError('permanent', 'rclone: a key must be a non-empty string');
  if (key.length > MAX_KEY_LENGTH) refuse('key', key, `longer than ${MAX_KEY_LENGTH} characters`);
  if (key.startsWith('/')) refuse('key', key, 'keys are relative to the target, not absolute paths');
  for (const segment of key.split('/')) {
    const problem = segmentProblem(segment);
    if (problem) refuse('key', key, problem);
  }
  return key;
}

/**
 * Splits a list prefix into the folder to list (`''` or ending in `/`) and the prefix itself,
 * which is a plain string prefix: `task/20` lists `task/2025/...` and `task/2026/...`.
 */
export function checkPrefix(prefix: unknown): { folder: string; prefix: string } {
  if (typeof prefix !== 'string') throw new ProviderError('permanent', 'rclone: a prefix must be a string');
  if (prefix === '') return { folder: '', prefix };
  if (prefix.length > MAX_KEY_LENGTH) refuse('prefix', prefix, `longer than ${MAX_KEY_LENGTH} characters`);
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
  return { folder: segments.length === 0 ? '' : `${segments.join('/')}/`, prefix };
}

/** The target's root as given (`bucket/backups`, `/srv/backups`, or `''` for the remote's root), without trailing slashes. */
export function normaliseRoot(root: string): string {
  if (root === '' || /^\/+$/.test(root)) return root === '' ? '' : '/';
  return root.replace(/\/+$/, '');
}

/** A temporary key beside `key`: `.<first 32 characters of the name>.<16 hex>.partial`. */
export function tempKeyFor(key: string): string {
  const slash = key.lastIndexOf('/');
  const dir = slash === -1 ? '' : key.slice(0, slash + 1);
  const name = key.slice(slash + 1);
  const shown = Array.from(name).slice(0, 32).join('');
  return `${dir}.${shown}.${randomBytes(8).toString('hex')}.partial`;
}

/** True for keys list() must not show: uploads in progress and connection probes. */
export function isInternalKey(key: string): boolean {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return TEMP_NAME.test(name) || (key === name && PROBE_NAME.test(name));
}
