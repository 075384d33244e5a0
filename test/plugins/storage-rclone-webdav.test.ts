import { join } from 'node:path';
import { runStorageContract } from '@backplane/plugin-testkit';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { deps, rcloneType } from '../helpers/rclone-types.ts';
import { startWebdavServer } from '../helpers/rclone-servers.ts';

// The storage conformance suite (@backplane/plugin-testkit) on rclone's webdav backend; a file of its own so the
// three backends run in parallel.
runStorageContract(
  'storage-rclone: webdav backend (rclone serve webdav)',
  async () => {
    const server = await startWebdavServer();
    const instance = await (await rcloneType('webdav')).create(
      { url: server.url, user: server.user, pass: server.pass, path: 'backups' },
      deps(),
    );
    return { instance, cleanup: server.stop, strand: strandInFolder(join(server.dir, 'backups')) };
  },
  { largeBytes: 64 * 1024 * 1024, stagesUploads: true },
);
