import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { backupTaskRoutes } from './backup-task-routes.ts';
import { BackupTaskService } from './backup-task-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  backupTasks: asClass(BackupTaskService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/backup-tasks', services, routes: [backupTaskRoutes] });
