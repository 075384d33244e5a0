import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExtractResult } from '../restore/safe-extract.ts';
import type { Restic } from './restic.ts';

/**
 * `restic restore` of a snapshot (or of the `include`d archive paths, tar's names without the
 * leading `/`) into an empty folder, then what it wrote: entries, bytes, and the folders that are
 * the record's own entries (those in `manifest` when one is given), for the staged move
 * (staged-restore.ts `extract`).
 */
export async function restoreResticSnapshot(
  restic: Restic,
  snapshotId: string,
  into: string,
  include: readonly string[],
  manifest?: Map<string, number>,
): Promise<ExtractResult & { folders: Set<string> }> {
  await restic.restore(snapshotId, into, include.length > 0 ? { include: include.map((p) => `/${p}`) } : {});
  const folders = new Set<string>();
  let entries = 0;
  let bytes = 0;
  for (const entry of await readdir(into, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name).slice(into.length + 1);
    if (manifest && !manifest.has(path)) continue;
    entries++;
    if (entry.isDirectory()) folders.add(path);
    else if (entry.isFile()) bytes += (await lstat(join(into, path))).size;
  }
  return { entries, bytes, folders };
}
