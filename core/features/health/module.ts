import { defineModule } from '../../lib/app-module.ts';
import { healthRoutes } from './health-routes.ts';

export default defineModule({ name: 'features/health', routes: [healthRoutes] });
