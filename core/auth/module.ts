import { asClass, asFunction } from 'awilix';
import type { MikroORM } from '@mikro-orm/core';
import type { Clock } from '../lib/clock.ts';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { AgentTokenCache } from './agent-token-cache.ts';
import { LoginLanes } from './login-lanes.ts';
import { OidcClients } from './oidc/oidc-clients.ts';

const services = {
  // Built here, not by awilix: its constructor takes a size, not the container.
  agentTokens: asFunction(() => new AgentTokenCache()).singleton(),
  // Per master: the providers' discovery documents and signing keys, cached.
  oidcClients: asClass(OidcClients).singleton(),
  // One per master: its queues are what serialises this master's sign-in attempts per account.
  loginLanes: asFunction(
    ({ orm, clock }: { orm: MikroORM; clock: Clock }) => new LoginLanes({ orm, clock }),
  ).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'auth', services });
