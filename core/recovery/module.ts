import { asClass, asFunction } from 'awilix';
import type { MikroORM } from '@mikro-orm/core';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { RecordLogHub } from '../backup/record-log.ts';
import { relayThroughCluster } from '../db/open-cluster.ts';
import { RestoreService } from './restore-service.ts';
import { VerifyService } from './verify-service.ts';
import { ReplicationService } from './replication-service.ts';

const services = {
  restoreLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'restore')).singleton(),
  verifyLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'verify')).singleton(),
  restores: asClass(RestoreService).singleton(),
  verifications: asClass(VerifyService).singleton(),
  replications: asClass(ReplicationService).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

/** This master's restores, verifications and replications stop (ended, not left running) before its session closes. */
const jobs = { runs: 'always', after: ['deliveryWorker'], stop: (s: { stop(): Promise<void> }) => s.stop() } as const;

export default defineModule({
  name: 'recovery',
  services,
  lifecycle: {
    restoreLogs: { runs: 'always', start: relayThroughCluster },
    verifyLogs: { runs: 'always', start: relayThroughCluster },
    restores: jobs,
    verifications: jobs,
    replications: jobs,
  },
});
