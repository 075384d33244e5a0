import { definePlugin } from '@backplane/plugin-api';
import { matrixType } from './matrix-notifier.ts';

/** Matrix notification channels. */
export default definePlugin({
  name: 'notify-matrix',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(matrixType);
  },
});
