import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { dashboardRoutes } from './dashboard-routes.ts';
import { DashboardService } from './dashboard-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  dashboard: asClass(DashboardService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/dashboard', services, routes: [dashboardRoutes] });
