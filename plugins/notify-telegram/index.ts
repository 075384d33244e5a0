import { definePlugin } from '@backplane/plugin-api';
import { telegramType } from './telegram-notifier.ts';

/** Telegram notification channels. */
export default definePlugin({
  name: 'notify-telegram',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(telegramType);
  },
});
