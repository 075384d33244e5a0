import type { AppModule, Runs, Services, ServiceLifecycle } from './app-module.ts';

interface Entry {
  name: string;
  module: string;
  lifecycle: ServiceLifecycle<unknown>;
}

/**
 * The start and stop order of every module's services, from their declared `after`: a
 * topological order of the whole graph (ties by module, then service name, so the order is
 * stable). Throws on a name no module registers or on a cycle.
 */
export function lifecycleOrder(modules: readonly AppModule[]): Entry[] {
  const entries = new Map<string, Entry>();
  for (const m of modules) {
    for (const [name, lifecycle] of Object.entries(m.lifecycle ?? {})) {
      if (!lifecycle) continue;
      if (!m.services || !(name in m.services))
        throw new Error(`module ${m.name}: lifecycle of "${name}", which it does not register`);
      entries.set(name, { name, module: m.name, lifecycle: lifecycle as ServiceLifecycle<unknown> });
    }
  }
  const ordered: Entry[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (entry: Entry, path: string[]): void => {
    if (state.get(entry.name) === 'done') return;
    if (state.get(entry.name) === 'visiting')
      throw new Error(`service lifecycles form a cycle: ${[...path, entry.name].join(' -> ')}`);
    state.set(entry.name, 'visiting');
    for (const dep of entry.lifecycle.after ?? []) {
      const before = entries.get(dep);
      if (!before)
        throw new Error(`${entry.name} (module ${entry.module}) starts after "${dep}", which has no lifecycle`);
      visit(before, [...path, entry.name]);
    }
    state.set(entry.name, 'done');
    ordered.push(entry);
  };
  const sorted = [...entries.values()].sort((a, b) => a.module.localeCompare(b.module) || a.name.localeCompare(b.name));
  for (const entry of sorted) visit(entry, []);
  return ordered;
}

/**
 * Starts and stops the services in their order. A service is stopped only once, and only when
 * it was started; a stop that fails is reported and the others still stop.
 */
export class ServiceLifecycles {
  readonly #order: Entry[];
  readonly #services: Services;
  readonly #onStopError: (name: string, err: unknown) => void;
  readonly #running = new Set<string>();
  /** One start or stop at a time: a change of leadership waits for the one before it. */
  #queue: Promise<unknown> = Promise.resolve();

  constructor(modules: readonly AppModule[], services: Services, onStopError: (name: string, err: unknown) => void) {
    this.#order = lifecycleOrder(modules);
    this.#services = services;
    this.#onStopError = onStopError;
  }

  /** The names in start order (for the docs and the tests). */
  get order(): string[] {
    return this.#order.map((e) => `${e.name}:${e.lifecycle.runs}`);
  }

  /** The names whose lifecycle stops them. */
  get stoppable(): Set<string> {
    return new Set(this.#order.filter((e) => e.lifecycle.stop).map((e) => e.name));
  }

  /** The names started and not stopped yet. */
  get running(): string[] {
    return [...this.#running];
  }

  start(runs: Runs): Promise<void> {
    return this.#serial(async () => {
      for (const entry of this.#order) {
        if (entry.lifecycle.runs !== runs || this.#running.has(entry.name)) continue;
        const service = (this.#services as unknown as Record<string, unknown>)[entry.name];
        await entry.lifecycle.start?.(service, this.#services);
        this.#running.add(entry.name);
      }
    });
  }

  /** Stops the running services of one kind (`leading` at a loss of leadership), or all of them. */
  stop(runs?: Runs): Promise<void> {
    return this.#serial(async () => {
      for (const entry of [...this.#order].reverse()) {
        if ((runs && entry.lifecycle.runs !== runs) || !this.#running.delete(entry.name)) continue;
        try {
          const service = (this.#services as unknown as Record<string, unknown>)[entry.name];
          await entry.lifecycle.stop?.(service, this.#services);
        } catch (err) {
          this.#onStopError(entry.name, err);
        }
      }
    });
  }

  #serial(work: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => undefined);
    return next;
  }
}
