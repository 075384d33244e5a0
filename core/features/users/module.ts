import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { userRoutes } from './user-routes.ts';
import { UserService } from './user-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  users: asClass(UserService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/users', services, routes: [userRoutes] });
