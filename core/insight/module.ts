import { asClass } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { MetricsCollector } from './metrics-collector.ts';

const services = {
  metricsCollector: asClass(MetricsCollector).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'insight',
  services,
  lifecycle: { metricsCollector: { runs: 'always', start: (s) => s.start(), stop: (s) => s.stop() } },
});
