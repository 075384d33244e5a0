import type { Resolver } from 'awilix';
import type { FastifyPluginAsync } from 'fastify';

/**
 * What one folder adds to the master, described in one place (its `module.ts`): container
 * registrations, route plugins, and the lifecycle of the services that start and stop. The
 * composition root (core/app.ts, core/container.ts) finds every module and composes them
 * without naming a service; start and stop order comes from each lifecycle's `after`.
 *
 * Each module also adds its services to `Services` below by declaration merging, next to
 * their registration, so the container's type is built from the modules themselves:
 *
 *     const services = { users: asClass(UserService).scoped() };
 *     declare module '../../lib/app-module.ts' { interface Services extends Registered<typeof services> {} }
 *     export default defineModule({ name: 'users', services, routes: [userRoutes] });
 */

/** Every service of every module, by container name (each module merges its own in). */
export interface Services {}

/** The registrations of a module, by container name. */
export type Registrations = Record<string, Resolver<unknown>>;

/** What a module's registrations resolve to. */
export type Registered<R extends Registrations> = { [K in keyof R]: R[K] extends Resolver<infer T> ? T : never };

/**
 * When a service runs. `always`: on every master, from start to shutdown. `leading`: while this
 * master leads the cluster (at once on SQLite), stopped when it stops leading.
 */
export type Runs = 'always' | 'leading';

export interface ServiceLifecycle<S> {
  runs: Runs;
  /**
   * Services (by container name) this one starts after and stops before. On shutdown every
   * running service stops in the reverse order of the whole graph, leading and always alike;
   * at a change of leadership only the leading ones start or stop, in the same order.
   */
  after?: readonly string[];
  /** Resolving the service is its start when absent (a metric family that must exist from boot). */
  start?: (service: S, services: Services) => unknown;
  stop?: (service: S, services: Services) => unknown;
}

export interface AppModule<R extends Registrations = Registrations> {
  /** Unique among modules; names the module in errors and in the start-up order. */
  name: string;
  services?: R;
  /** Fastify route plugins, registered in this order. */
  routes?: readonly FastifyPluginAsync[];
  lifecycle?: { [K in keyof R]?: ServiceLifecycle<Registered<R>[K]> };
  /**
   * Registered after every module without it: a catch-all (the console's page fallback) must
   * come after the routes it falls back from.
   */
  last?: boolean;
}

/** Identity, for the types: a module's lifecycle hooks see its own services' types. */
export function defineModule<R extends Registrations>(module: AppModule<R>): AppModule<R> {
  return module;
}
