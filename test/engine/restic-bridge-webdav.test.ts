import { join } from 'node:path';
import { rcloneType, deps } from '../helpers/rclone-types.ts';
import { startWebdavServer } from '../helpers/rclone-servers.ts';
import { resticScenario } from './restic-scenario.ts';

// The real restic through the bridge onto the rclone storage plugin's webdav backend, served by
// `rclone serve webdav` on 127.0.0.1 from a local folder. Every storage operation is an rclone
// process here, so only the steps whose outcome the storage decides are run (init, two backups,
// a byte-identical restore, check --read-data-subset=100%, the refused uploads); the config's
// version, listing, append-only, forget and prune, and the stock restic opening the folder are
// the local disk's (restic-bridge-local.test.ts), through the same bridge code.
resticScenario(
  'over the REST bridge on WebDAV (rclone serve webdav)',
  async () => {
    const server = await startWebdavServer();
    const storage = await (await rcloneType('webdav')).create(
      { url: server.url, user: server.user, pass: server.pass, path: 'backups' },
      deps(),
    );
    return { storage, folder: join(server.dir, 'backups'), cleanup: server.stop };
  },
  { bigBytes: 5 * 1024 * 1024, steps: 'storage' },
);
