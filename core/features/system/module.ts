import { defineModule } from '../../lib/app-module.ts';
import { systemRoutes } from './system-routes.ts';

export default defineModule({ name: 'features/system', routes: [systemRoutes] });
