import { asFunction } from 'awilix';
import type { DatabaseDriverType, NotifierType, StorageType } from '@backplane/plugin-api';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { ProviderRegistry } from '../engine/index.ts';

/** The registries the plugins fill (core/plugin-host/load.ts) and every provider is opened from. */
const services = {
  storageTypes: asFunction(() => new ProviderRegistry<StorageType>('storage')).singleton(),
  notifierTypes: asFunction(() => new ProviderRegistry<NotifierType>('notifier')).singleton(),
  databaseDrivers: asFunction(() => new ProviderRegistry<DatabaseDriverType>('database')).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'plugin-host', services });
