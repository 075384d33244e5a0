import { join } from 'node:path';
import { runStorageContract } from '@backplane/plugin-testkit';
import { strandInFolder } from '../helpers/stranded-upload.ts';
import { deps, rcloneType } from '../helpers/rclone-types.ts';
import { startSftpServer } from '../helpers/rclone-servers.ts';

// The storage conformance suite (@backplane/plugin-testkit) on rclone's sftp backend; a file of its own so the
// three backends run in parallel.
runStorageContract(
  'storage-rclone: sftp backend (rclone serve sftp)',
  async () => {
    const server = await startSftpServer();
    const instance = await (await rcloneType('sftp')).create(
      { host: server.host, port: server.port, user: server.user, pass: server.pass, path: 'backups' },
      deps(),
    );
    return { instance, cleanup: server.stop, strand: strandInFolder(join(server.dir, 'backups')) };
  },
  { largeBytes: 64 * 1024 * 1024, stagesUploads: true },
);
