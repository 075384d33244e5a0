import { asClass, asFunction } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { relayThroughCluster } from '../db/open-cluster.ts';
import { AuditWriter } from './audit-writer.ts';
import { EventBus } from './event-bus.ts';
import { AuditRetention } from './audit-retention.ts';
import { AuditWebhook } from './audit-webhook.ts';

const services = {
  audit: asClass(AuditWriter).singleton(),
  events: asFunction(({ masterId }: { masterId: number }) => new EventBus(masterId)).singleton(),
  auditRetention: asClass(AuditRetention).singleton(),
  auditWebhook: asClass(AuditWebhook).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'events',
  services,
  lifecycle: {
    // Several masters (PostgreSQL): events travel through the cluster so every master's clients see them.
    events: { runs: 'always', start: relayThroughCluster },
    auditRetention: { runs: 'leading', start: (s) => s.start(), stop: (s) => s.stop() },
    auditWebhook: { runs: 'always', start: (s) => s.start(), stop: (s) => s.stop() },
  },
});
