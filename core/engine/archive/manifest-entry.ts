/** One archive entry as the manifest records it: written by the tar source, read by its entry writer and by restores. */
export type ManifestEntryType = 'file' | 'directory' | 'symlink';

export interface ManifestEntry {
  /** The entry name in the tar (no leading `/`; directories without a trailing `/`). */
  path: string;
  /** Bytes of content (0 for directories and links). */
  size: number;
  mtime: Date;
  /** Permission bits (e.g. 0o644). */
  mode: number;
  type: ManifestEntryType;
  /** Target of a symbolic link. */
  linkname?: string;
}
