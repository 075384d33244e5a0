import { defineModule } from '../../lib/app-module.ts';
import { complianceRoutes } from './compliance-routes.ts';

export default defineModule({ name: 'features/reports', routes: [complianceRoutes] });
