import { keySegments, prefixParts, type KeyRules } from '@backplane/plugin-api';

/**
 * Keys are `/`-separated paths below the target's base folder; each segment is one Drive folder
 * (or, for the last one, the file's name). Drive itself has no paths, so nothing can "escape"
 * the base folder, but keys with `.`/`..`/empty segments are still refused: they would mean
 * something else on every other backend, and the same key must name the same object everywhere.
 */

/** Drive caps names at 32 767 bytes; a segment longer than this is certainly a mistake. */
const MAX_SEGMENT_BYTES = 1024;

/** The name of testConnection's probe file; list() skips it and no key may use it. */
export const PROBE_NAME = /^\.backplane-probe-[0-9a-f]{32}$/;

const RULES: KeyRules = {
  provider: 'google drive',
  segmentProblem(segment) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES)
      return `a path segment is longer than ${MAX_SEGMENT_BYTES} bytes`;
    if (PROBE_NAME.test(segment))
      return 'names of the form ".backplane-probe-<32 hex>" are reserved for connection tests';
    return undefined;
  },
};

/** A valid key (shared rules: @backplane/plugin-api, object-keys.ts) as its folder segments and its file name. */
export function splitKey(key: unknown): { folders: string[]; name: string } {
  const segments = keySegments(key, RULES);
  const name = segments.pop()!;
  return { folders: segments, name };
}

/**
 * A list prefix as the folders it certainly lies in and the start of the next name
 * (`task/20` lists `task/2025/...`, `task/2026/...` and `task/20x`). The empty prefix lists everything.
 */
export function splitPrefix(prefix: unknown): { folders: string[]; partial: string } {
  return prefixParts(prefix, RULES);
}

/** A string literal for Drive's `q` query language: `'` and `\` escaped with a backslash. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}
