import { createContainer, asValue, InjectionMode, Lifetime, type AwilixContainer } from 'awilix';
import type { EntityManager, MikroORM } from '@mikro-orm/core';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.ts';
import { systemClock, type Clock } from './lib/clock.ts';
import { SecretBox } from './security/secret-box.ts';
import { deriveKey } from './security/master-key.ts';
import { SessionTokens } from './auth/jwt.ts';
import { LoginLimiter, type LoginLimits } from './auth/login-limiter.ts';
import type { AgeKeyPair } from './engine/index.ts';
import type { Cluster } from './db/cluster.ts';
import type { LoadedPlugin } from './plugin-host/load.ts';
import type { AppModule, Services } from './lib/app-module.ts';
import type { RunInJobScope } from './lib/job-scope.ts';
import type { ServerAddress } from './auth/mfa/webauthn-party.ts';

/**
 * What the root provides before any module (core/lib/app-module.ts): the configuration, the
 * database, the keys and time. Everything else comes from the modules.
 */
export interface Platform {
  config: Config;
  /** Time for leases and schedules; tests pass one they advance. */
  clock: Clock;
  orm: MikroORM;
  /** This master's id: its boot number (core/db/cluster.ts). */
  masterId: number;
  startedAt: Date;
  secretBox: SecretBox;
  sessionTokens: SessionTokens;
  loginLimiter: LoginLimiter;
  /** The installation's age key pair; only `recipient` ever leaves the master. */
  ageKeys: AgeKeyPair;
  ageRecipient: string;
  plugins: LoadedPlugin[];
  runInJobScope: RunInJobScope;
  /** Registered by app.ts once the Fastify instance exists. */
  logger: FastifyBaseLogger;
  /** The masters sharing the database, as this one sees them (registered by app.ts once the logger exists). */
  cluster: Cluster;
  /** The addresses this master listens on now; none before it listens (registered by app.ts, read per request). */
  serverAddresses: () => ServerAddress[];
  /** Per request or background job: its own EntityManager fork. */
  em: EntityManager;
}

declare module './lib/app-module.ts' {
  interface Services extends Platform {}
}

export type Cradle = Services;

declare module '@fastify/awilix' {
  interface Cradle extends Services {}
  interface RequestCradle extends Services {}
}

export interface ContainerOptions {
  config: Config;
  orm: MikroORM;
  masterKey: Buffer;
  ageKeys: AgeKeyPair;
  bootEpoch: number;
  loginLimits?: LoginLimits;
  clock?: Clock;
}

/**
 * A fresh container per app instance (never awilix's module-level default, which would leak
 * between test apps), in strict mode so a singleton can never capture a request's scope: the
 * platform's values, then every module's registrations (a name registered twice is an error).
 */
export function createAppContainer(options: ContainerOptions, modules: readonly AppModule[]): AwilixContainer<Cradle> {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  container.register({
    config: asValue(options.config),
    clock: asValue(options.clock ?? systemClock),
    orm: asValue(options.orm),
    masterId: asValue(options.bootEpoch),
    startedAt: asValue(new Date()),
    secretBox: asValue(new SecretBox(deriveKey(options.masterKey, 'secrets'))),
    sessionTokens: asValue(new SessionTokens(deriveKey(options.masterKey, 'jwt'), options.config.jwtTtlSeconds)),
    loginLimiter: asValue(new LoginLimiter(options.loginLimits)),
    ageKeys: asValue(options.ageKeys),
    ageRecipient: asValue(options.ageKeys.recipient),
    plugins: asValue([]),
    runInJobScope: asValue(<T>(work: (services: Services) => Promise<T>) => inJobScope(container, work)),
  });
  const owner = new Map<string, string>();
  for (const m of modules) {
    for (const [name, resolver] of Object.entries(m.services ?? {})) {
      const taken = owner.get(name) ?? (container.hasRegistration(name) ? 'the platform' : undefined);
      if (taken) throw new Error(`module ${m.name} registers "${name}", which ${taken} registers already`);
      owner.set(name, `module ${m.name}`);
      container.register(name, resolver);
    }
  }
  return container;
}

/** Names of the modules' singletons (for the check that each one that stops has a lifecycle). */
export function singletonNames(container: AwilixContainer<Cradle>, modules: readonly AppModule[]): string[] {
  return modules
    .flatMap((m) => Object.keys(m.services ?? {}))
    .filter((name) => container.getRegistration(name)?.lifetime === Lifetime.SINGLETON);
}

/** A scope for background work: its own EntityManager fork, disposed by the caller. */
export function createJobScope(container: AwilixContainer<Cradle>): AwilixContainer<Cradle> {
  const scope = container.createScope();
  scope.register({ em: asValue(container.cradle.orm.em.fork()) });
  return scope;
}

async function inJobScope<T>(container: AwilixContainer<Cradle>, work: (services: Services) => Promise<T>): Promise<T> {
  const scope = createJobScope(container);
  try {
    return await work(scope.cradle);
  } finally {
    await scope.dispose();
  }
}
