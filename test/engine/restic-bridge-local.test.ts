import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { localDisk, tempDir } from './helpers.ts';
import { resticScenario } from './restic-scenario.ts';

// The real restic through the bridge onto the local-disk storage plugin; the folder it fills is
// then opened by the stock restic directly (`restic -r <folder>/repositories/task-3`). The whole
// life runs here; the WebDAV file runs only the steps the storage decides.
resticScenario(
  'over the REST bridge on the local disk',
  async () => {
    const { dir, cleanup } = await tempDir('bp-restic-local-');
    const folder = join(dir, 'backups');
    await mkdir(folder);
    return { storage: await localDisk(folder), folder, cleanup };
  },
  { bigBytes: 12 * 1024 * 1024, steps: 'all' },
);
