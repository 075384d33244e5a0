import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { auditRoutes } from './audit-routes.ts';
import { AuditQuery } from './audit-query.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  auditQuery: asClass(AuditQuery).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/audit', services, routes: [auditRoutes] });
