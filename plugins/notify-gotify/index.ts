import { definePlugin } from '@backplane/plugin-api';
import { gotifyType } from './gotify-notifier.ts';

/** Gotify notification channels. */
export default definePlugin({
  name: 'notify-gotify',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(gotifyType);
  },
});
