import type { Services } from './app-module.ts';

/**
 * Runs scoped services' work for a singleton (which cannot hold a request's services): a scope
 * of its own with its own EntityManager fork, disposed after. The composition root provides it.
 */
export type RunInJobScope = <T>(work: (services: Services) => Promise<T>) => Promise<T>;
