import { asClass, asFunction } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import type { RunInJobScope } from '../../lib/job-scope.ts';
import { settingsRoutes } from './settings-routes.ts';
import { settingsCatalogueRoutes } from './settings-catalogue-routes.ts';
import { SettingsService } from './settings-service.ts';

const services = {
  settings: asClass(SettingsService).scoped(),
  /** The settings' current values, read in a job scope (for singletons, which cannot hold `settings`). */
  readSettings: asFunction(
    ({ runInJobScope }: { runInJobScope: RunInJobScope }) =>
      () =>
        runInJobScope((s) => s.settings.values()),
  ).singleton(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'features/settings', services, routes: [settingsRoutes, settingsCatalogueRoutes] });
