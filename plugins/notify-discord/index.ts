import { definePlugin } from '@backplane/plugin-api';
import { discordType } from './discord-notifier.ts';

/** Discord notification channels. */
export default definePlugin({
  name: 'notify-discord',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(discordType);
  },
});
