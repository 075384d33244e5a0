import { asFunction } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { AgentTokenCache } from './agent-token-cache.ts';

const services = {
  // Built here, not by awilix: its constructor takes a size, not the container.
  agentTokens: asFunction(() => new AgentTokenCache()).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'auth', services });
