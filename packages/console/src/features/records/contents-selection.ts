/**
 * The contents browser's selection, as archive paths each meaning "this and everything below"
 * (the restore route's `selectedPaths`). Kept minimal: no path is stored under a selected one.
 * Pure: tested in test/console/records-contents-selection.test.ts.
 */
import { archivePath } from './contents-tree.ts';

/** The restore route takes at most this many `selectedPaths`. */
export const MAX_SELECTED_PATHS = 1000;

export type CheckState = 'checked' | 'partial' | 'unchecked';

const isBelow = (path: string, ancestor: string): boolean =>
  ancestor === '' ? path !== '' : path.startsWith(`${ancestor}/`);

/** The selected path at or above `path`, if any. */
function coveringPath(selected: ReadonlySet<string>, path: string): string | undefined {
  for (const s of selected) if (s === path || isBelow(path, s)) return s;
  return undefined;
}

export function checkState(selected: ReadonlySet<string>, path: string): CheckState {
  const p = archivePath(path);
  if (coveringPath(selected, p) !== undefined) return 'checked';
  for (const s of selected) if (isBelow(s, p)) return 'partial';
  return 'unchecked';
}

/**
 * The selection with `path` checked or unchecked. Unchecking a path inside a selected folder
 * replaces the folder by everything in it except that path, so `childrenOf` (the paths directly
 * in a folder, as the listing shows them) is needed to spell the rest out.
 */
export function setChecked(
  selected: ReadonlySet<string>,
  path: string,
  on: boolean,
  childrenOf: (folder: string) => readonly string[],
): Set<string> {
  const p = archivePath(path);
  const out = new Set(selected);
  if (p === '') return on ? out : new Set();
  if (on) {
    if (coveringPath(out, p) !== undefined) return out;
    for (const s of [...out]) if (isBelow(s, p)) out.delete(s);
    out.add(p);
    return out;
  }
  for (const s of [...out]) if (isBelow(s, p)) out.delete(s);
  const cover = coveringPath(out, p);
  if (cover === undefined) return out;
  out.delete(cover);
  let cur = cover;
  while (cur !== p) {
    const rest = p.slice(cur.length + 1);
    const next = `${cur}/${rest.split('/')[0]}`;
    for (const c of childrenOf(cur)) if (c !== next) out.add(c);
    cur = next;
  }
  return out;
}

/** The paths to send as `selectedPaths`: sorted, none below another. */
export function restorePaths(selected: ReadonlySet<string>): string[] {
  const paths = new Set([...selected].map(archivePath).filter((p) => p !== ''));
  const covered = (p: string): boolean => {
    for (let i = p.indexOf('/'); i >= 0; i = p.indexOf('/', i + 1)) if (paths.has(p.slice(0, i))) return true;
    return false;
  };
  return [...paths].filter((p) => !covered(p)).sort();
}
