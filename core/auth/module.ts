import { asClass, asFunction } from 'awilix';
import { defineModule, type Registered } from '../lib/app-module.ts';
import { AgentTokenCache } from './agent-token-cache.ts';
import { OidcClients } from './oidc/oidc-clients.ts';

const services = {
  // Built here, not by awilix: its constructor takes a size, not the container.
  agentTokens: asFunction(() => new AgentTokenCache()).singleton(),
  // Per master: the providers' discovery documents and signing keys, cached.
  oidcClients: asClass(OidcClients).singleton(),
};

declare module '../lib/app-module.ts' {
  interface Services extends Registered<typeof services> {}
}

export default defineModule({ name: 'auth', services });
