import { defineModule } from '../../lib/app-module.ts';
import { searchRoutes } from './search-routes.ts';

export default defineModule({ name: 'features/search', routes: [searchRoutes] });
