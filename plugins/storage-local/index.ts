import { definePlugin } from '@backplane/plugin-api';
import { localDiskType } from './local-disk.ts';

/** Built-in storage: a folder on a local (or mounted) disk. */
export default definePlugin({
  name: 'storage-local',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.storage.addType(localDiskType);
  },
});
