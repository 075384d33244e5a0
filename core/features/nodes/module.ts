import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { nodeRoutes } from './node-routes.ts';
import { nodeFsRoutes } from './node-fs-routes.ts';
import { NodeService } from './node-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  nodes: asClass(NodeService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/nodes', services, routes: [nodeRoutes, nodeFsRoutes] });
