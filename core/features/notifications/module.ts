import { asClass } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import { notificationRoutes } from './notification-routes.ts';
import { eventTypeRoutes } from './event-type-routes.ts';
import { NotificationChannelService } from './notification-service.ts';

/** Per request: bound to the request's EntityManager. */
const services = {
  notificationChannels: asClass(NotificationChannelService).scoped(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'features/notifications',
  services,
  routes: [notificationRoutes, eventTypeRoutes],
});
