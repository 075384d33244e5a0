import { definePlugin } from '@backplane/plugin-api';
import { webhookType } from './webhook-notifier.ts';

/** Webhook notification channels: signed JSON POSTs to any URL. */
export default definePlugin({
  name: 'notify-webhook',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(webhookType);
  },
});
