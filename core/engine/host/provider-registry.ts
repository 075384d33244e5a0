import {
  PROVIDER_TYPE_PATTERN,
  type DatabaseDriverType,
  type NotifierType,
  type ProviderManifest,
  type StorageType,
} from '@backplane/plugin-api';

export type ProviderKind = 'storage' | 'notifier' | 'database';

export class PluginError extends Error {
  override name = 'PluginError';
}

/** One registry per provider kind; a singleton in the container. */
export class ProviderRegistry<T extends ProviderManifest> {
  readonly kind: ProviderKind;
  readonly #types = new Map<string, { provider: T; plugin: string }>();

  constructor(kind: ProviderKind) {
    this.kind = kind;
  }

  add(provider: T, plugin: string): void {
    if (!provider || typeof provider.type !== 'string' || !PROVIDER_TYPE_PATTERN.test(provider.type)) {
      throw new PluginError(
        `plugin "${plugin}": ${this.kind} type must have a lower-case "type" name (got ${JSON.stringify(provider?.type)})`,
      );
    }
    if (typeof (provider as { create?: unknown }).create !== 'function') {
      throw new PluginError(`plugin "${plugin}": ${this.kind} type "${provider.type}" has no create() function`);
    }
    const existing = this.#types.get(provider.type);
    if (existing) {
      throw new PluginError(
        `plugin "${plugin}": ${this.kind} type "${provider.type}" is already provided by plugin "${existing.plugin}"`,
      );
    }
    this.#types.set(provider.type, { provider, plugin });
  }

  get(type: string): T | undefined {
    return this.#types.get(type)?.provider;
  }

  has(type: string): boolean {
    return this.#types.has(type);
  }

  list(): T[] {
    return [...this.#types.values()].map((e) => e.provider);
  }

  /** type -> providing plugin name, for system info and diagnostics. */
  owners(): Record<string, string> {
    return Object.fromEntries([...this.#types].map(([type, e]) => [type, e.plugin]));
  }
}

/** The three registries the plugins fill: the master's container holds them, an agent loads them standalone. */
export interface Registries {
  storageTypes: ProviderRegistry<StorageType>;
  notifierTypes: ProviderRegistry<NotifierType>;
  databaseDrivers: ProviderRegistry<DatabaseDriverType>;
}
