import { asClass, asFunction } from 'awilix';
import { Registry } from 'prom-client';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { BackupMetrics } from './backup-metrics.ts';
import { NotificationMetrics } from './notification-metrics.ts';
import { RecoveryMetrics } from './recovery-metrics.ts';

const services = {
  metricsRegistry: asFunction(() => new Registry()).singleton(),
  backupMetrics: asClass(BackupMetrics).singleton(),
  notificationMetrics: asClass(NotificationMetrics).singleton(),
  recoveryMetrics: asClass(RecoveryMetrics).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'metrics',
  services,
  // Resolved at start, so /metrics lists every recovery series (at zero) before the first run ends.
  lifecycle: { recoveryMetrics: { runs: 'always' } },
});
