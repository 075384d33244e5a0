import { definePlugin } from '@backplane/plugin-api';
import { postgresType } from './postgres-driver.ts';

/** PostgreSQL database driver: discovery through `pg`, dumps with pg_dump, restores with psql. */
export default definePlugin({
  name: 'db-postgres',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.databases.addType(postgresType);
  },
});
