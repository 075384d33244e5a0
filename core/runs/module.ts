import { asClass } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { BackupRuns } from './backup-runs.ts';
import { BackupScheduler } from './scheduler.ts';
import { BackupCancel } from './backup-cancel.ts';
import { RunTimeLimits } from './run-time-limits.ts';
import { RemoteBackups } from './remote-backups.ts';
import { RemoteRestores } from './remote-restores.ts';
import { LeaseMonitor } from './lease-monitor.ts';
import { DeadMasters } from './dead-masters.ts';
import { AgentRepositoryBridge } from './agent-repository-bridge.ts';

const services = {
  backupRuns: asClass(BackupRuns).singleton(),
  scheduler: asClass(BackupScheduler).singleton(),
  backupCancel: asClass(BackupCancel).singleton(),
  runTimeLimits: asClass(RunTimeLimits).singleton(),
  remoteBackups: asClass(RemoteBackups).singleton(),
  remoteRestores: asClass(RemoteRestores).singleton(),
  leaseMonitor: asClass(LeaseMonitor).singleton(),
  deadMasters: asClass(DeadMasters).singleton(),
  agentRepositoryBridge: asClass(AgentRepositoryBridge).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'runs',
  services,
  lifecycle: {
    // A master that lost its database session stops its runs: another master may settle them.
    // On shutdown its runs stop (cancelled, nothing kept) before the session closes, or the
    // leader could settle them as a dead master's.
    backupRuns: {
      runs: 'always',
      after: ['deliveryWorker'],
      start: (s, { cluster }) =>
        cluster.onSessionLost(() =>
          s.abortRunning('this master lost its database session; another master may settle this run'),
        ),
      stop: (s) => s.stop(),
    },
    // Every master enforces the time limits of its own runs (the leader: of agents' runs too).
    runTimeLimits: { runs: 'always', after: ['backupRuns'], start: (s) => s.start(), stop: (s) => s.stop() },
    // Every master: a cancel asked on another master for a run this one holds.
    backupCancel: {
      runs: 'always',
      after: ['backupRuns'],
      start: (s, { logger }) => s.listen((err) => logger.error({ err }, 'a cancel asked on another master failed')),
    },
    // The leader settles what a crash or a stopped master left running before anything is scheduled.
    deadMasters: {
      runs: 'leading',
      after: ['backupRuns', 'deliveryWorker'],
      start: (s) => s.start(),
      stop: (s) => s.stop(),
    },
    leaseMonitor: { runs: 'leading', after: ['deadMasters'], start: (s) => s.start(), stop: (s) => s.stop() },
    scheduler: { runs: 'leading', after: ['leaseMonitor'], start: (s) => s.start(), stop: (s) => s.stop() },
  },
});
