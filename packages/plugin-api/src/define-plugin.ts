import type { StorageType, NotifierType, DatabaseDriverType } from './contracts.ts';

/** The plugin API version this core speaks. A plugin declaring another is refused at boot. */
export const PLUGIN_API_VERSION = 1;

/**
 * The brand that marks a plugin object. A registered symbol (not `instanceof`) so that a
 * plugin built against another copy of this package is still recognised.
 */
export const PLUGIN_BRAND = Symbol.for('backplane.plugin');

/** What a plugin's `name` must look like (`storage-minio`, `@acme/backplane-minio`). */
export const PLUGIN_NAME_PATTERN = /^[a-z0-9@][a-z0-9@/._-]{0,127}$/;

/** What a provider type's `type` must look like (`local_disk`, `s3`), unique within its kind. */
export const PROVIDER_TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;

/** What a plugin may extend; it never reaches into the container or core internals. */
export interface ExtensionPoints {
  storage: { addType(type: StorageType): void; has(type: string): boolean };
  notifiers: { addType(type: NotifierType): void; has(type: string): boolean };
  databases: { addType(type: DatabaseDriverType): void; has(type: string): boolean };
}

export interface PluginOptions {
  ext: ExtensionPoints;
}

/**
 * What `register` receives as its first argument. Core passes its Fastify instance (the agent a
 * bare one that never listens); a plugin should rely only on its logger, so it runs the same
 * in both and a plugin package needs no Fastify types.
 */
export interface PluginApp {
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void; debug(msg: string): void };
}

export interface PluginDefinition {
  name: string;
  apiVersion: number;
  /** Called once at boot (core wraps it with fastify-plugin) with the extension points bound to this plugin. */
  register(app: PluginApp, options: PluginOptions): Promise<void> | void;
}

export interface BackplanePlugin extends PluginDefinition {
  readonly [PLUGIN_BRAND]: true;
}

export function definePlugin(definition: PluginDefinition): BackplanePlugin {
  return Object.freeze({ ...definition, [PLUGIN_BRAND]: true as const });
}

export function isPlugin(value: unknown): value is BackplanePlugin {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PLUGIN_BRAND] === true;
}
