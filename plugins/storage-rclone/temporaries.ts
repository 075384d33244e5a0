import { checkKey, isTemporaryKey, temporariesOf } from './keys.ts';
import { STANDARD, type RcloneRunner } from './rclone-runner.ts';
import { deleteFile, filesIn } from './remote-files.ts';
import { uploadStrategy } from './upload-strategy.ts';

// A master killed mid-upload leaves `rcat`'s temporary object (rcat even completes it when its
// stdin closes with the dead parent). Backends uploading straight to the key have none.

/** The temporaries of one key's uploads; returns how many were removed. */
export async function removeTemporaries(r: RcloneRunner, key: string): Promise<number> {
  checkKey(key);
  if (uploadStrategy(r.def.backend) === 'direct') return 0;
  const ready = await r.prepare();
  const { folder, matches } = temporariesOf(key);
  const found: string[] = [];
  for await (const file of filesIn(r, ready, folder, false)) if (matches(file.name)) found.push(file.key);
  for (const temp of found) await deleteFile(r, ready, temp, STANDARD);
  return found.length;
}

/** Every temporary older than `olderThan`, except those of the keys being uploaded (`keep`). */
export async function removeStaleTemporaries(
  r: RcloneRunner,
  olderThan: Date,
  keep: Iterable<string>,
): Promise<number> {
  if (uploadStrategy(r.def.backend) === 'direct') return 0;
  const kept = [...keep].map((key) => temporariesOf(key));
  const ready = await r.prepare();
  const stale: string[] = [];
  for await (const file of filesIn(r, ready, '', true)) {
    if (!isTemporaryKey(file.key) || file.modifiedAt === undefined || file.modifiedAt >= olderThan) continue;
    const slash = file.key.lastIndexOf('/');
    const folder = file.key.slice(0, slash + 1);
    const name = file.key.slice(slash + 1);
    if (kept.some((k) => k.folder === folder && k.matches(name))) continue;
    stale.push(file.key);
  }
  for (const temp of stale) await deleteFile(r, ready, temp, STANDARD);
  return stale.length;
}
