import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { installRoutes } from './install-routes.ts';
import { InstallService } from './install-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  installs: asClass(InstallService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/install', services, routes: [installRoutes] });
