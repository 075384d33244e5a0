import { definePlugin } from '@backplane/plugin-api';
import { ntfyType } from './ntfy-notifier.ts';

/** ntfy notification channels. */
export default definePlugin({
  name: 'notify-ntfy',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(ntfyType);
  },
});
