import { definePlugin } from '@backplane/plugin-api';
import { pushoverType } from './pushover-notifier.ts';

/** Pushover notification channels. */
export default definePlugin({
  name: 'notify-pushover',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(pushoverType);
  },
});
