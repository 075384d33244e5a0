import { definePlugin } from '@backplane/plugin-api';
import { mysqlType } from './mysql-driver.ts';

/** MySQL and MariaDB database driver: discovery through `mysql2`, dumps with mysqldump, restores with mysql. */
export default definePlugin({
  name: 'db-mysql',
  apiVersion: 1,
  register(_app, { ext }) {
    ext.databases.addType(mysqlType);
  },
});
