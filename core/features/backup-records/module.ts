import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { backupRecordRoutes } from './backup-record-routes.ts';
import { BackupRecordService } from './backup-record-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  backupRecords: asClass(BackupRecordService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/backup-records', services, routes: [backupRecordRoutes] });
