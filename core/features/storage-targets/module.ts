import { asClass, asFunction } from 'awilix';
import { defineModule, type Registered } from '../../lib/app-module.ts';
import type { RunInJobScope } from '../../lib/job-scope.ts';
import { storageTargetRoutes } from './storage-target-routes.ts';
import { storageTypeCatalogueRoutes } from './storage-type-catalogue.ts';
import { StorageTargetService } from './storage-target-service.ts';
import { StorageOAuthFlow } from './oauth-flow.ts';

const services = {
  storageTargets: asClass(StorageTargetService).scoped(),
  storageOAuth: asClass(StorageOAuthFlow).scoped(),
  /** Drops expired storage authorisation drafts, in a job scope. */
  purgeOAuthDrafts: asFunction(
    ({ runInJobScope }: { runInJobScope: RunInJobScope }) =>
      () =>
        runInJobScope((s) => s.storageOAuth.purge()),
  ).singleton(),
};

declare module '../../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'features/storage-targets',
  services,
  routes: [storageTargetRoutes, storageTypeCatalogueRoutes],
});
