import { defineModule } from '../../lib/app-module.ts';
import { recoveryRoutes } from './recovery-routes.ts';

export default defineModule({ name: 'features/recovery', routes: [recoveryRoutes] });
