import { compressionExtension, type Compression } from '../stream/compression.ts';

/**
 * Storage keys: `<task name slug>/<YYYY>/<MM>/<DD>/<record id>-<timestamp>.<ext>` (the
 * contract), dates in UTC so a key never depends on the server's zone.
 */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return slug === '' ? 'task' : slug;
}

function stamp(d: Date): string {
  // 2026-11-21T10:04:05.123Z -> 20261121T100405Z
  return d
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * The one name of a run's artifact, for runs on the master and on agents alike. The timestamp
 * is the run's start (the record's `startedAt`), which is set once and kept: so every reader
 * of a record (the executor, each read of an agent's task spec) names the same object.
 */
export function storageKey(taskName: string, recordId: number, startedAt: Date, extension: string): string {
  const iso = startedAt.toISOString();
  const [yyyy, mm, dd] = [iso.slice(0, 4), iso.slice(5, 7), iso.slice(8, 10)];
  return `${slugify(taskName)}/${yyyy}/${mm}/${dd}/${recordId}-${stamp(startedAt)}.${extension}`;
}

/** The artifact's file extension: the raw one (`tar`, `sql`, ...), then compression, then `.age`. */
export function artifactExtension(rawExtension: string, compression: Compression, encrypted: boolean): string {
  return `${rawExtension}${compressionExtension(compression)}${encrypted ? '.age' : ''}`;
}

/** The last segment of a key: the file name a download offers. */
export function fileNameOf(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}
