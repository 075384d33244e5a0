import {
  isTemporaryUploadOf,
  keySegments,
  prefixParts,
  type KeyRules,
  TEMP_UPLOAD_NAME,
  pathLikeSegmentProblem,
  temporaryUploadName,
} from '@backplane/plugin-api';

/**
 * Object keys and where they land inside an rclone remote. Keys are `/`-separated and relative
 * to the target's `path`; nothing here touches rclone, so the rules are the same on every backend.
 */

/**
 * In-progress uploads: `.<name>.<16 hex>.partial` beside the final object (the same shape the
 * local-disk provider uses). list() hides them and no key may use such a name, so an upload in
 * flight is never mistaken for an object.
 */
export const TEMP_NAME = TEMP_UPLOAD_NAME;

/** Names of testConnection's probe objects (deleted again by the probe). */
export const PROBE_PREFIX = '.backplane-probe-';
const PROBE_NAME = /^\.backplane-probe-[0-9a-f]{16}$/;

const RULES: KeyRules = { provider: 'rclone', segmentProblem: pathLikeSegmentProblem };

/** Checks a key against the shared rules (@backplane/plugin-api, object-keys.ts); returns it unchanged. */
export function checkKey(key: unknown): string {
  keySegments(key, RULES);
  return key as string;
}

/**
 * Splits a list prefix into the folder to list (`''` or ending in `/`) and the prefix itself,
 * which is a plain string prefix: `task/20` lists `task/2025/...` and `task/2026/...`.
 */
export function checkPrefix(prefix: unknown): { folder: string; prefix: string } {
  const { folders } = prefixParts(prefix, RULES);
  return { folder: folders.length === 0 ? '' : `${folders.join('/')}/`, prefix: prefix as string };
}

/** The target's root as given (`bucket/backups`, `/srv/backups`, or `''` for the remote's root), without trailing slashes. */
export function normaliseRoot(root: string): string {
  if (root === '' || /^\/+$/.test(root)) return root === '' ? '' : '/';
  return root.replace(/\/+$/, '');
}

function splitKey(key: string): { folder: string; name: string } {
  const slash = key.lastIndexOf('/');
  return { folder: slash === -1 ? '' : key.slice(0, slash + 1), name: key.slice(slash + 1) };
}

/**
 * A temporary key beside `key`: `.<first 32 characters of the name>.<16 hex>.partial`, the hex
 * starting with a digest of the name (@backplane/plugin-api, object-keys.ts), so a crashed upload's
 * temporary can be found from `key` alone.
 */
export function tempKeyFor(key: string): string {
  const { folder, name } = splitKey(key);
  return `${folder}${temporaryUploadName(name)}`;
}

/** The folder holding `key`'s temporaries (`''` or ending in `/`) and a test for their names. */
export function temporariesOf(key: string): { folder: string; matches: (name: string) => boolean } {
  const { folder, name } = splitKey(key);
  return { folder, matches: (candidate) => isTemporaryUploadOf(candidate, name) };
}

/** True when the key (of any folder) is a temporary upload name. */
export function isTemporaryKey(key: string): boolean {
  return TEMP_NAME.test(splitKey(key).name);
}

/** True for keys list() must not show: uploads in progress and connection probes. */
export function isInternalKey(key: string): boolean {
  const name = key.slice(key.lastIndexOf('/') + 1);
  return TEMP_NAME.test(name) || (key === name && PROBE_NAME.test(name));
}
