import type { ManifestEntry } from '../archive/manifest-entry.ts';
/**
 * restic's JSON documents as typed values: the snapshots (`snapshots --json`, and the first line
 * of `ls --json`), the nodes of a snapshot's tree (`ls --json`) and a repository's statistics
 * (`stats --json`). Field names are restic 0.14's; what a later restic adds is ignored.
 */

export interface ResticSnapshot {
  /** The full id (64 hex digits); every command also takes its first 8 (`shortId`). */
  id: string;
  shortId: string;
  time: Date;
  /** The snapshot a backup of the same paths compared against, when there was one. */
  parent?: string;
  tree: string;
  paths: string[];
  hostname: string;
  username: string;
  tags: string[];
}

export type ResticNodeType = 'file' | 'dir' | 'symlink' | 'dev' | 'chardev' | 'fifo' | 'socket';

export interface ResticNode {
  /** Absolute, as the snapshot stores it: `/srv/app/config.yml`. */
  path: string;
  type: ResticNodeType;
  /** Bytes of a file; 0 for everything else. */
  size: number;
  mtime: Date;
  /** Permission bits with setuid, setgid and sticky (0o7777), as stat's st_mode holds them. */
  mode: number;
  uid: number;
  gid: number;
}

export interface ResticStats {
  /** `raw-data`: bytes the repository stores for these snapshots (compressed); `restore-size`: bytes a restore writes. */
  totalSize: number;
  /** `raw-data` only, from restic 0.15 on (0.14 does not print it). */
  totalUncompressedSize?: number;
  totalFileCount: number;
  /** `raw-data` only. */
  totalBlobCount?: number;
  snapshotsCount: number;
}

type Json = Record<string, unknown>;

export function snapshotOf(raw: Json): ResticSnapshot {
  const snapshot: ResticSnapshot = {
    id: String(raw.id),
    shortId: String(raw.short_id ?? String(raw.id).slice(0, 8)),
    time: new Date(String(raw.time)),
    tree: String(raw.tree),
    paths: strings(raw.paths),
    hostname: String(raw.hostname ?? ''),
    username: String(raw.username ?? ''),
    tags: strings(raw.tags),
  };
  if (typeof raw.parent === 'string') snapshot.parent = raw.parent;
  return snapshot;
}

export function nodeOf(raw: Json): ResticNode {
  return {
    path: String(raw.path),
    type: String(raw.type) as ResticNodeType,
    size: Number(raw.size ?? 0),
    mtime: new Date(String(raw.mtime)),
    mode: posixMode(Number(raw.mode ?? 0)),
    uid: Number(raw.uid ?? 0),
    gid: Number(raw.gid ?? 0),
  };
}

export function statsOf(raw: Json): ResticStats {
  const stats: ResticStats = {
    totalSize: Number(raw.total_size ?? 0),
    totalFileCount: Number(raw.total_file_count ?? 0),
    snapshotsCount: Number(raw.snapshots_count ?? 0),
  };
  if (typeof raw.total_uncompressed_size === 'number') stats.totalUncompressedSize = raw.total_uncompressed_size;
  if (typeof raw.total_blob_count === 'number') stats.totalBlobCount = raw.total_blob_count;
  return stats;
}

/**
 * A Go os.FileMode (what restic prints as `mode`) as POSIX mode bits: the permissions are the
 * same nine bits; setuid, setgid and sticky sit at bits 23, 22 and 20 in Go.
 */
export function posixMode(goMode: number): number {
  let mode = goMode & 0o777;
  if (goMode & (1 << 23)) mode |= 0o4000;
  if (goMode & (1 << 22)) mode |= 0o2000;
  if (goMode & (1 << 20)) mode |= 0o1000;
  return mode;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

/**
 * A snapshot node as a record's manifest lists it (tar's names: no leading `/`), when it lies at
 * or below one of the task's source paths (`restic ls` also lists the folders above them) and is a
 * file, folder or link; undefined otherwise.
 */
export function manifestEntryOfNode(node: ResticNode, roots: readonly string[]): ManifestEntry | undefined {
  const inside = roots.some((r) => {
    const root = r.replace(/\/+$/, '');
    return node.path === root || node.path.startsWith(`${root}/`);
  });
  if (!inside) return undefined;
  const type = NODE_TYPES[node.type];
  if (!type) return undefined;
  return { path: node.path.replace(/^\/+/, ''), size: node.size, mtime: node.mtime, mode: node.mode & 0o7777, type };
}

const NODE_TYPES: Partial<Record<ResticNodeType, ManifestEntry['type']>> = {
  file: 'file',
  dir: 'directory',
  symlink: 'symlink',
};
