import { definePlugin } from '@backplane/plugin-api';
import { createGoogleDriveType } from './google-drive-type.ts';

/**
 * Built-in storage: Google Drive through OAuth. The endpoints come from BACKPLANE_GOOGLE_AUTH_URL,
 * BACKPLANE_GOOGLE_TOKEN_URL and BACKPLANE_GOOGLE_API_URL (read per operation), else Google's.
 */
export default definePlugin({
  name: 'storage-google-drive',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.storage.addType(createGoogleDriveType());
  },
});
