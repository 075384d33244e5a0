import { asClass, asFunction } from 'awilix';
import type { MikroORM } from '@mikro-orm/core';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { RecordLogHub } from './record-log.ts';
import { relayThroughCluster } from '../db/open-cluster.ts';
import { BackupExecutor } from './backup-executor.ts';
import { RecordDeleter } from './record-deleter.ts';
import { RetentionService } from './retention-service.ts';
import { SlaScan } from './sla-scan.ts';
import { TarSnapshots } from './tar-snapshots.ts';
import { Repositories } from './repositories.ts';

const services = {
  recordLogs: asFunction(({ orm }: { orm: MikroORM }) => new RecordLogHub(orm, 'backup')).singleton(),
  backupExecutor: asClass(BackupExecutor).singleton(),
  recordDeleter: asClass(RecordDeleter).singleton(),
  retention: asClass(RetentionService).singleton(),
  slaScan: asClass(SlaScan).singleton(),
  tarSnapshots: asClass(TarSnapshots).singleton(),
  repositories: asClass(Repositories).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'backup',
  services,
  lifecycle: {
    // Several masters (PostgreSQL): a record's live log streams from whichever master a client reaches.
    recordLogs: { runs: 'always', start: relayThroughCluster },
    // Deletions that failed before are retried by the leader, after start-up recovery.
    recordDeleter: {
      runs: 'leading',
      after: ['deadMasters'],
      start: (s) => s.startRetries(),
      stop: (s) => s.stopRetries(),
    },
    slaScan: { runs: 'leading', after: ['deliveryWorker'], start: (s) => s.start(), stop: (s) => s.stop() },
  },
});
