import { definePlugin } from '@backplane/plugin-api';
import { slackType } from './slack-notifier.ts';

/** Slack notification channels. */
export default definePlugin({
  name: 'notify-slack',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(slackType);
  },
});
