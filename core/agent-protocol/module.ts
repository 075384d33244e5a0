import { asClass } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { CommandQueue } from './command-queue.ts';
import { HeartbeatWriter } from './heartbeat-writer.ts';
import { NodeMonitor } from './node-monitor.ts';

const services = {
  commandQueue: asClass(CommandQueue).singleton(),
  heartbeatWriter: asClass(HeartbeatWriter).singleton(),
  nodeMonitor: asClass(NodeMonitor).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({
  name: 'agent-protocol',
  services,
  lifecycle: {
    nodeMonitor: { runs: 'leading', after: ['deliveryWorker'], start: (s) => s.start(), stop: (s) => s.stop() },
  },
});
