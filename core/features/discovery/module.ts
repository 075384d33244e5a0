import { defineModule } from '../../lib/app-module.ts';
import { discoveryRoutes } from './discovery-routes.ts';
import { databaseTypeCatalogueRoutes } from './database-type-catalogue.ts';

export default defineModule({ name: 'features/discovery', routes: [discoveryRoutes, databaseTypeCatalogueRoutes] });
