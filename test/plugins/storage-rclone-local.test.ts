import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStorageContract } from '@backplane/plugin-testkit';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { deps, rcloneType } from '../helpers/rclone-types.ts';

// The storage conformance suite (@backplane/plugin-testkit) on rclone's local backend; a file of its own so the
// three backends run in parallel.
runStorageContract(
  'storage-rclone: local backend',
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'backplane-rclone-local-'));
    const instance = await (await rcloneType('local')).create({ path: dir }, deps());
    return { instance, cleanup: () => rm(dir, { recursive: true, force: true }), strand: strandInFolder(dir) };
  },
  { stagesUploads: true },
);
