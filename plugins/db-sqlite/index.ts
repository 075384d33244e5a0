import { definePlugin } from '@backplane/plugin-api';
import { sqliteType } from './sqlite-driver.ts';

/** SQLite database driver: online backup API for dumps, verified atomic replacement for restores. */
export default definePlugin({
  name: 'db-sqlite',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.databases.addType(sqliteType);
  },
});
