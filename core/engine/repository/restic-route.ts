import { isResticFileType, isResticId, type ResticFile, type ResticFileType } from './restic-layout.ts';

/**
 * What a request path of restic's REST protocol names. The path is matched as sent, never
 * decoded or normalised: every valid path is plain ASCII (`/`, `/config`, `/<type>/`,
 * `/<type>/<64 hex>`), so anything percent-encoded, dotted or doubled is simply no match.
 */
export type ResticRoute =
  | { kind: 'repository' }
  | { kind: 'list'; type: ResticFileType }
  | { kind: 'file'; file: ResticFile }
  /** A known type with a name that is not an id: the client's mistake (400), not a missing file. */
  | { kind: 'bad-name' }
  | { kind: 'unknown' };

export function resticRoute(path: string): ResticRoute {
  if (path === '/') return { kind: 'repository' };
  if (path === '/config') return { kind: 'file', file: { type: 'config' } };
  const parts = path.split('/');
  // ['', type, name]: exactly two segments below the root.
  if (parts.length !== 3 || parts[0] !== '') return { kind: 'unknown' };
  const [, type, name] = parts as [string, string, string];
  if (!isResticFileType(type)) return { kind: 'unknown' };
  if (name === '') return { kind: 'list', type };
  return isResticId(name) ? { kind: 'file', file: { type, id: name } } : { kind: 'bad-name' };
}
