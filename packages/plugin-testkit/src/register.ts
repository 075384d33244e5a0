import {
  isPlugin,
  PLUGIN_API_VERSION,
  PLUGIN_NAME_PATTERN,
  PROVIDER_TYPE_PATTERN,
  type DatabaseDriverType,
  type ExtensionPoints,
  type NotifierType,
  type PluginApp,
  type StorageType,
} from '@backplane/plugin-api';

/** What a plugin registered, by kind and type name, and what it logged while registering. */
export interface Registration {
  storage: Map<string, StorageType>;
  notifiers: Map<string, NotifierType>;
  databases: Map<string, DatabaseDriverType>;
  logs: Array<{ level: 'info' | 'warn' | 'error' | 'debug'; msg: string }>;
}

/**
 * Registers a plugin against fake extension points, with the checks core makes at boot (brand,
 * API version, name, one provider per type name, a `create` function), so an author can
 * unit-test registration without a Backplane server. `existing` lists type names another plugin
 * already provides (what `ext.<kind>.has` answers true for). Rejects with core's reasons.
 */
export async function registerPlugin(
  plugin: unknown,
  existing: { storage?: string[]; notifiers?: string[]; databases?: string[] } = {},
): Promise<Registration> {
  if (!isPlugin(plugin)) throw new Error('not a Backplane plugin (make it with definePlugin())');
  if (plugin.apiVersion !== PLUGIN_API_VERSION)
    throw new Error(
      `declares plugin API version ${String(plugin.apiVersion)}, this kit supports ${PLUGIN_API_VERSION}`,
    );
  if (typeof plugin.name !== 'string' || !PLUGIN_NAME_PATTERN.test(plugin.name)) {
    throw new Error(`name must be a lower-case identifier (got ${JSON.stringify(plugin.name)})`);
  }
  if (typeof plugin.register !== 'function') throw new Error('register is not a function');
  const registration: Registration = { storage: new Map(), notifiers: new Map(), databases: new Map(), logs: [] };
  const point = <T extends { type: string }>(kind: string, types: Map<string, T>, taken: string[] = []) => ({
    addType(type: T): void {
      if (!type || typeof type.type !== 'string' || !PROVIDER_TYPE_PATTERN.test(type.type)) {
        throw new Error(`${kind} type must have a lower-case "type" name (got ${JSON.stringify(type?.type)})`);
      }
      if (typeof (type as { create?: unknown }).create !== 'function')
        throw new Error(`${kind} type "${type.type}" has no create() function`);
      if (types.has(type.type) || taken.includes(type.type))
        throw new Error(`${kind} type "${type.type}" is already provided`);
      types.set(type.type, type);
    },
    has: (name: string) => types.has(name) || taken.includes(name),
  });
  const ext: ExtensionPoints = {
    storage: point('storage', registration.storage, existing.storage),
    notifiers: point('notifier', registration.notifiers, existing.notifiers),
    databases: point('database', registration.databases, existing.databases),
  };
  const log = (level: Registration['logs'][number]['level']) => (msg: string) => {
    registration.logs.push({ level, msg });
  };
  const app: PluginApp = { log: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') } };
  await plugin.register(app, { ext });
  return registration;
}
