import { randomBytes } from 'node:crypto';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { temporaryUploadName } from '@backplane/plugin-api';

/**
 * The storage contract's `strand` for providers that stage uploads beside the final object in a
 * folder of this machine (local_disk, rclone's local backend, a folder served by `rclone serve`):
 * writes the temporary file a killed upload to `key` would leave, last modified at `modifiedAt`.
 */
export function strandInFolder(root: string): (key: string, modifiedAt: Date) => Promise<void> {
  return async (key, modifiedAt) => {
    const segments = key.split('/');
    const name = segments.pop()!;
    const dir = join(root, ...segments);
    await mkdir(dir, { recursive: true });
    const path = join(dir, temporaryUploadName(name));
    await writeFile(path, randomBytes(1000));
    await utimes(path, modifiedAt, modifiedAt);
  };
}
