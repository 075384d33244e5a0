import { definePlugin } from '../../core/plugin-host/define-plugin.ts';
import { localDiskType } from './local-disk.ts';

/** Built-in storage: a folder on a local (or mounted) disk. */
export default definePlugin({
  name: 'storage-local',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.storage.addType(localDiskType);
  },
});
