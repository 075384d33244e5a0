import { statfs } from 'node:fs/promises';

/** A file system's capacity in bytes, as `df` reports it. */
export interface DiskUsage {
  totalBytes: number;
  /** Blocks in use (`df`'s "Used"): total minus free blocks, reserved blocks excluded. */
  usedBytes: number;
  /** Blocks an unprivileged process may still use (`df`'s "Available"). */
  freeBytes: number;
}

/**
 * The capacity of the file system holding `path`. One definition for every place that shows
 * disk figures (a local storage target's usage, the master's system information), so the same
 * disk never reports two "used" numbers: used + free is less than total where blocks are reserved.
 */
export async function diskUsage(path: string): Promise<DiskUsage> {
  const fs = await statfs(path);
  return {
    totalBytes: fs.blocks * fs.bsize,
    usedBytes: (fs.blocks - fs.bfree) * fs.bsize,
    freeBytes: fs.bavail * fs.bsize,
  };
}
