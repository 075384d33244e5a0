import { defineModule } from '../../lib/app-module.ts';
import { eventStreamRoutes } from './event-stream-routes.ts';

export default defineModule({ name: 'features/events', routes: [eventStreamRoutes] });
