import { asClass } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { StorageTargetOpener } from './target-opener.ts';
import { StorageHealthMonitor } from './storage-health.ts';
import { TemporarySweep } from './temporary-sweep.ts';

const services = {
  storageOpener: asClass(StorageTargetOpener).singleton(),
  storageHealth: asClass(StorageHealthMonitor).singleton(),
  temporarySweep: asClass(TemporarySweep).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'storage',
  services,
  lifecycle: {
    storageHealth: {
      runs: 'leading',
      after: ['deliveryWorker'],
      start: (s, { config }) => s.start(config.storageHealthIntervalSeconds),
      stop: (s) => s.stop(),
    },
    // After recovery, which already removed what the interrupted runs left.
    temporarySweep: {
      runs: 'leading',
      after: ['deadMasters'],
      start: (s, { config }) => s.start(config.tempSweepIntervalSeconds),
      stop: (s) => s.stop(),
    },
  },
});
