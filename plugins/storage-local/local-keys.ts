import { resolve, sep } from 'node:path';
import {
  ProviderError,
  keySegments as sharedKeySegments,
  prefixParts as sharedPrefixParts,
  segmentProblem as sharedSegmentProblem,
  type KeyRules,
  TEMP_UPLOAD_NAME,
  pathLikeSegmentProblem,
} from '@backplane/plugin-api';

/**
 * In-progress uploads: `.<name>.<16 hex>.partial` beside the final file. list() skips them and
 * no key may use such a name, so an upload in flight can never be mistaken for an object.
 */
export const TEMP_NAME = TEMP_UPLOAD_NAME;

const RULES: KeyRules = { provider: 'local disk', segmentProblem: pathLikeSegmentProblem };

/** Why a single path segment is not allowed here, or undefined when it is fine. */
export const segmentProblem = (segment: string): string | undefined => sharedSegmentProblem(segment, RULES);

/** The segments of a valid key (see @backplane/plugin-api, object-keys.ts for the shared rules). */
export const keySegments = (key: unknown): string[] => sharedKeySegments(key, RULES);

/** The folder segments of a list prefix, and its trailing partial name. */
export const prefixParts = (prefix: unknown): { folders: string[]; partial: string } =>
  sharedPrefixParts(prefix, RULES);

function refuse(what: string, value: string, why: string): never {
  throw new ProviderError('permanent', `local disk: invalid ${what} ${JSON.stringify(value)}: ${why}`);
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
