import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { apiKeyRoutes } from './api-key-routes.ts';
import { ApiKeyService } from './api-key-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  apiKeys: asClass(ApiKeyService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/api-keys', services, routes: [apiKeyRoutes] });
