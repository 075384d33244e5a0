import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import {
  isPlugin,
  PLUGIN_API_VERSION,
  PLUGIN_NAME_PATTERN,
  type BackplanePlugin,
  type DatabaseDriverType,
  type ExtensionPoints,
  type NotifierType,
  type PluginOptions,
  type StorageType,
} from '@backplane/plugin-api';
import type { PluginSource } from './discover.ts';
import { PluginError, type ProviderRegistry, type Registries } from '../engine/index.ts';

export interface LoadedPlugin {
  name: string;
  source: PluginSource;
  plugin: BackplanePlugin;
}

/**
 * Imports each source and checks brand, API version and name uniqueness; errors name the plugin.
 * `disabled` (BACKPLANE_PLUGINS_DISABLED) names plugins to leave out: by folder, package name or
 * label a source is not even imported (so a broken plugin can be switched off); by plugin name it
 * is imported but not loaded. A name that matches nothing stops boot, so a typo cannot go unseen.
 */
export async function importPlugins(sources: PluginSource[], disabled: string[] = []): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const names = new Map<string, string>();
  const off = new Set(disabled);
  const matched = new Set<string>();
  for (const source of sources) {
    const offBySource = source.names.filter((n) => off.has(n));
    if (offBySource.length > 0) {
      offBySource.forEach((n) => matched.add(n));
      continue;
    }
    if (source.apiVersion !== undefined && source.apiVersion !== PLUGIN_API_VERSION) {
      throw new PluginError(
        `plugin "${source.label}": its package.json declares plugin API version ${JSON.stringify(source.apiVersion)}` +
          ` ("backplane.apiVersion"), this Backplane supports ${PLUGIN_API_VERSION}`,
      );
    }
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(source.entry).href)) as Record<string, unknown>;
    } catch (err) {
      throw new PluginError(`plugin "${source.label}": cannot import ${source.entry}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const plugin = mod.default ?? mod.plugin;
    if (!isPlugin(plugin)) {
      throw new PluginError(
        `plugin "${source.label}": its default export is not a Backplane plugin (make it with definePlugin())`,
      );
    }
    if (off.has(plugin.name)) {
      matched.add(plugin.name);
      continue;
    }
    if (plugin.apiVersion !== PLUGIN_API_VERSION) {
      throw new PluginError(
        `plugin "${source.label}": declares plugin API version ${String(plugin.apiVersion)}, this Backplane supports ${PLUGIN_API_VERSION}`,
      );
    }
    if (typeof plugin.name !== 'string' || !PLUGIN_NAME_PATTERN.test(plugin.name)) {
      throw new PluginError(
        `plugin "${source.label}": name must be a lower-case identifier (got ${JSON.stringify(plugin.name)})`,
      );
    }
    if (typeof plugin.register !== 'function')
      throw new PluginError(`plugin "${plugin.name}" (${source.label}): register is not a function`);
    const clash = names.get(plugin.name);
    if (clash) throw new PluginError(`plugin "${plugin.name}": loaded twice, from ${clash} and from ${source.label}`);
    names.set(plugin.name, source.label);
    loaded.push({ name: plugin.name, source, plugin });
  }
  const unknown = [...off].filter((n) => !matched.has(n));
  if (unknown.length > 0) {
    throw new PluginError(
      `BACKPLANE_PLUGINS_DISABLED names ${unknown.map((n) => JSON.stringify(n)).join(', ')}: no plugin found has that name` +
        ' (use a plugin name, package name or plugins/ folder name)',
    );
  }
  return loaded;
}

/** Registers each plugin as a Fastify plugin with extension points bound to its own name. */
export async function registerPlugins(
  app: FastifyInstance,
  plugins: LoadedPlugin[],
  registries: Registries,
): Promise<void> {
  for (const { name, plugin, source } of plugins) {
    const ext: ExtensionPoints = {
      storage: { addType: (t) => registries.storageTypes.add(t, name), has: (t) => registries.storageTypes.has(t) },
      notifiers: { addType: (t) => registries.notifierTypes.add(t, name), has: (t) => registries.notifierTypes.has(t) },
      databases: {
        addType: (t) => registries.databaseDrivers.add(t, name),
        has: (t) => registries.databaseDrivers.has(t),
      },
    };
    // A plugin's own exception would otherwise stop boot without saying which plugin threw.
    async function registerPlugin(instance: FastifyInstance, options: PluginOptions): Promise<void> {
      try {
        await plugin.register(instance, options);
      } catch (err) {
        if (err instanceof PluginError) throw err;
        throw new PluginError(
          `plugin "${name}" (${source.label}): register failed: ${(err as Error)?.message ?? String(err)}`,
          { cause: err },
        );
      }
    }
    // fastify-plugin: a plugin's decorators and hooks are not hidden inside an encapsulated context.
    await app.register(fp(registerPlugin, { name: `backplane-plugin:${name}`, fastify: '5.x' }), { ext });
  }
}
