import type { FastifyInstance } from 'fastify';
import type { StorageType, NotifierType, DatabaseDriverType } from './contracts.ts';

/** The plugin API version this core speaks. A plugin declaring another is refused at boot. */
export const PLUGIN_API_VERSION = 1;

/**
 * The brand that marks a plugin object. A registered symbol (not `instanceof`) so that a
 * plugin built against another copy of this package is still recognised.
 */
export const PLUGIN_BRAND = Symbol.for('backplane.plugin');

/** What a plugin may extend; it never reaches into the container or core internals. */
export interface ExtensionPoints {
  storage: { addType(type: StorageType): void; has(type: string): boolean };
  notifiers: { addType(type: NotifierType): void; has(type: string): boolean };
  databases: { addType(type: DatabaseDriverType): void; has(type: string): boolean };
}

export interface PluginOptions { ext: ExtensionPoints }

export interface PluginDefinition {
  name: string;
  apiVersion: number;
  /** A Fastify plugin; core wraps it with fastify-plugin and passes the extension points. */
  register(app: FastifyInstance, options: PluginOptions): Promise<void> | void;
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
