import { definePlugin } from '@backplane/plugin-api';
import { teamsType } from './teams-notifier.ts';

/** Microsoft Teams notification channels. */
export default definePlugin({
  name: 'notify-teams',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(teamsType);
  },
});
