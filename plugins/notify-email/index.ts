import { definePlugin } from '@backplane/plugin-api';
import { emailType } from './email-notifier.ts';

/** Email notification channels over SMTP (nodemailer). */
export default definePlugin({
  name: 'notify-email',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.notifiers.addType(emailType);
  },
});
