/**
 * A record's contents listing (GET /api/backup/records/{id}/contents: a flat, path-sorted list of
 * archive entries) as a folder tree. Folders that only lead to the backed-up paths (`srv` above
 * `srv/app`) have no entry of their own in the archive; they are made up here so the tree can be
 * walked from the top. Pure: tested in test/console/records-contents-tree.test.ts.
 */
export interface ContentEntry {
  path: string;
  size: number;
  isDir: boolean;
  type: string;
  mode: number;
  mtime: string;
}

export interface TreeNode {
  name: string;
  /** Archive path (no leading slash), '' for the root. */
  path: string;
  isDir: boolean;
  /** The archive's own entry; null for a folder only implied by the paths below it. */
  entry: ContentEntry | null;
  /** Folders first, then by name. */
  children: TreeNode[];
  /** Bytes of the files at and below this node. */
  size: number;
  /** Files (anything but folders) at and below this node. */
  files: number;
}

/** An archive path as the API writes it: no leading or trailing slash, no empty or `.` parts. */
export function archivePath(p: string): string {
  return p
    .split('/')
    .filter((part) => part !== '' && part !== '.')
    .join('/');
}

export function parentPath(path: string): string {
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

interface Building extends TreeNode {
  byName: Map<string, Building>;
  children: Building[];
}

function node(path: string): Building {
  return { name: baseName(path), path, isDir: true, entry: null, children: [], byName: new Map(), size: 0, files: 0 };
}

function total(n: Building): void {
  n.children.sort((a, b) =>
    a.isDir === b.isDir ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.isDir ? -1 : 1,
  );
  if (!n.isDir) {
    n.size = n.entry?.size ?? 0;
    n.files = 1;
    return;
  }
  for (const c of n.children) {
    total(c);
    n.size += c.size;
    n.files += c.files;
  }
}

function strip(n: Building): TreeNode {
  return {
    name: n.name,
    path: n.path,
    isDir: n.isDir,
    entry: n.entry,
    size: n.size,
    files: n.files,
    children: n.children.map(strip),
  };
}

/** The tree of a listing; an entry listed twice (the API may repeat one) counts once. */
export function buildTree(entries: readonly ContentEntry[]): TreeNode {
  const root = node('');
  const ensure = (path: string): Building => {
    let cur = root;
    if (path === '') return cur;
    for (const part of path.split('/')) {
      let next = cur.byName.get(part);
      if (!next) {
        next = node(cur.path === '' ? part : `${cur.path}/${part}`);
        cur.byName.set(part, next);
        cur.children.push(next);
      }
      cur = next;
    }
    return cur;
  };
  for (const e of entries) {
    const path = archivePath(e.path);
    if (path === '') continue;
    const n = ensure(path);
    n.entry = { ...e, path };
    n.isDir = e.isDir || n.children.length > 0;
  }
  // A file entry that turned out to have entries below it is a folder after all.
  const fix = (n: Building): void => {
    if (n.children.length > 0) n.isDir = true;
    n.children.forEach(fix);
  };
  fix(root);
  total(root);
  return strip(root);
}

export function findNode(root: TreeNode, path: string): TreeNode | undefined {
  const p = archivePath(path);
  if (p === '') return root;
  let cur: TreeNode | undefined = root;
  for (const part of p.split('/')) {
    cur = cur.children.find((c) => c.name === part);
    if (!cur) return undefined;
  }
  return cur;
}

/**
 * The folder to open first: going down from the root while a folder holds nothing but one
 * folder (a backup of /srv/app starts at srv/app, not at an empty-looking `srv`).
 */
export function firstInterestingFolder(root: TreeNode): string {
  let cur = root;
  while (cur.children.length === 1 && cur.children[0]?.isDir) cur = cur.children[0];
  return cur.path;
}

/** The links above a folder: the root ('') and each folder down to `path`. */
export function breadcrumbs(path: string): Array<{ name: string; path: string }> {
  const p = archivePath(path);
  const out = [{ name: '', path: '' }];
  if (p === '') return out;
  const parts = p.split('/');
  parts.forEach((name, i) => out.push({ name, path: parts.slice(0, i + 1).join('/') }));
  return out;
}
