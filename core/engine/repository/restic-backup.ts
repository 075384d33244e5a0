import { resolve } from 'node:path';
import { getSystemErrorMessage } from 'node:util';
import { resticExcludes, sourcesKept } from './restic-excludes.ts';

/**
 * `restic backup --json`: its arguments, and the messages it prints. Status and summary lines
 * come on stdout; an item restic could not read comes on stderr as a JSON error line (exit 3 at
 * the end: the snapshot is made without it), a source path that does not exist as a text line
 * (`/x does not exist, skipping`, exit 0).
 */

export interface ResticBackupOptions {
  /** Backplane's exclude patterns (restic-excludes.ts maps them); a path to back up they match is left out. */
  excludes?: readonly string[];
  /** Tags on the snapshot; a tag cannot hold a comma (restic splits `--tag` on commas). */
  tags?: readonly string[];
  /** The host name the snapshot records (restic's default: this machine's). */
  host?: string;
  onProgress?: (status: ResticBackupStatus) => void;
  /** An item left out of the snapshot, with why; the backup still succeeds. */
  onWarning?: (message: string, path: string) => void;
  /**
   * The full id of the new snapshot from its short id, where the caller can tell without a restic
   * process (the master lists the repository's `snapshots/` on the storage); otherwise, or when it
   * answers undefined, `restic snapshots` is asked (one more repository opening).
   */
  resolveSnapshotId?: (shortId: string) => Promise<string | undefined>;
}

export interface ResticBackupStatus {
  /** 0 to 1. */
  percentDone: number;
  totalFiles: number;
  filesDone: number;
  totalBytes: number;
  bytesDone: number;
  errorCount: number;
  currentFiles: string[];
}

export interface ResticBackupSummary {
  /** The full id (resolved after the backup: restic 0.14's summary has only the short one). */
  snapshotId: string;
  shortId: string;
  filesNew: number;
  filesChanged: number;
  filesUnmodified: number;
  dirsNew: number;
  dirsChanged: number;
  dirsUnmodified: number;
  dataBlobs: number;
  treeBlobs: number;
  /** Bytes this backup added to the repository (new data after deduplication, before compression). */
  dataAdded: number;
  totalFilesProcessed: number;
  totalBytesProcessed: number;
  /** Seconds. */
  totalDuration: number;
  /** Items left out (onWarning was called this many times). */
  warnings: number;
}

type Json = Record<string, unknown>;

export function backupArgs(paths: readonly string[], options: ResticBackupOptions): string[] {
  if (paths.length === 0) throw new TypeError('restic backup: no path to back up');
  const args = ['backup', '--json', '--compression=auto'];
  for (const tag of options.tags ?? []) {
    if (tag === '' || tag.includes(','))
      throw new TypeError(`restic backup: tag ${JSON.stringify(tag)} is empty or holds a comma`);
    args.push(`--tag=${tag}`);
  }
  if (options.host) args.push(`--host=${options.host}`);
  // absolute, as the tar walk stores them: restic would store a relative path below the snapshot's root
  const excludes = options.excludes ?? [];
  const sources = sourcesKept(
    paths.map((p) => resolve(p)),
    excludes,
  );
  if (sources.length === 0) throw new TypeError('restic backup: every path to back up is excluded');
  for (const pattern of resticExcludes(excludes, sources)) args.push(`--exclude=${pattern}`);
  return [...args, '--', ...sources];
}

export function statusOf(raw: Json): ResticBackupStatus {
  return {
    percentDone: Number(raw.percent_done ?? 0),
    totalFiles: Number(raw.total_files ?? 0),
    filesDone: Number(raw.files_done ?? 0),
    totalBytes: Number(raw.total_bytes ?? 0),
    bytesDone: Number(raw.bytes_done ?? 0),
    errorCount: Number(raw.error_count ?? 0),
    currentFiles: Array.isArray(raw.current_files) ? raw.current_files.map(String) : [],
  };
}

export function summaryOf(raw: Json, snapshotId: string, warnings: number): ResticBackupSummary {
  return {
    snapshotId,
    shortId: String(raw.snapshot_id),
    filesNew: Number(raw.files_new ?? 0),
    filesChanged: Number(raw.files_changed ?? 0),
    filesUnmodified: Number(raw.files_unmodified ?? 0),
    dirsNew: Number(raw.dirs_new ?? 0),
    dirsChanged: Number(raw.dirs_changed ?? 0),
    dirsUnmodified: Number(raw.dirs_unmodified ?? 0),
    dataBlobs: Number(raw.data_blobs ?? 0),
    treeBlobs: Number(raw.tree_blobs ?? 0),
    dataAdded: Number(raw.data_added ?? 0),
    totalFilesProcessed: Number(raw.total_files_processed ?? 0),
    totalBytesProcessed: Number(raw.total_bytes_processed ?? 0),
    totalDuration: Number(raw.total_duration ?? 0),
    warnings,
  };
}

/**
 * A stderr line of a backup as a warning, or undefined for anything else (restic's closing
 * "Warning: at least one source file could not be read" repeats the warnings before it).
 */
export function backupWarningOf(line: string): { message: string; path: string } | undefined {
  const missing = /^(.+) does not exist, skipping$/.exec(line);
  if (missing) return { message: `skipped ${missing[1]!}: it does not exist`, path: missing[1]! };
  if (!line.startsWith('{')) return undefined;
  let raw: Json;
  try {
    raw = JSON.parse(line) as Json;
  } catch {
    return undefined;
  }
  if (raw.message_type !== 'error') return undefined;
  const path = String(raw.item ?? '');
  return { message: `skipped ${path}: ${errorText(raw.error, String(raw.during ?? 'backup'))}`, path };
}

/**
 * restic marshals the Go error itself: a *PathError is `{Op, Path, Err: errno}`; an error without
 * exported fields is `{}`, which says nothing more than where it happened.
 */
function errorText(error: unknown, during: string): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object') {
    const e = error as Json;
    if (typeof e.Err === 'number') {
      const what = getSystemErrorMessage(-e.Err);
      return typeof e.Op === 'string' ? `${e.Op}: ${what}` : what;
    }
    if (typeof e.message === 'string') return e.message;
  }
  return `error during ${during}`;
}
