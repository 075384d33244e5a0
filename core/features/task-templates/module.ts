import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { taskTemplateRoutes } from './task-template-routes.ts';
import { TaskTemplateService } from './task-template-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  taskTemplates: asClass(TaskTemplateService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/task-templates', services, routes: [taskTemplateRoutes] });
